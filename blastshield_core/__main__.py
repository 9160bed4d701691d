import gc
import os
import sys
import types

# The collector is off while `prestart` is imported (it imports most of the standard library the
# command needs); `pause_collector` then keeps it off through a read command's imports, or turns it
# back on for any other command.
_collector_on = gc.isenabled()
gc.disable()

# BlastShield's models use no pydantic plugin. Looking for one reads the metadata of every
# installed package, and importing pydantic's plugin loader imports `importlib.metadata`
# (together about 30 ms of each command). With plugins off (the default here; set
# PYDANTIC_DISABLE_PLUGINS to turn them back on) the loader's one function answers "no
# plugins", which is what pydantic's own loader answers for "__all__", so it is given as that.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
if os.environ["PYDANTIC_DISABLE_PLUGINS"] == "__all__" and "pydantic.plugin._loader" not in sys.modules:
    _no_plugins = types.ModuleType("pydantic.plugin._loader")
    _no_plugins.get_plugins = lambda: ()  # type: ignore[attr-defined]
    sys.modules["pydantic.plugin._loader"] = _no_plugins

from .graph import prestart  # noqa: E402 - after the collector is off

prestart.pause_collector(sys.argv[1:], was_enabled=_collector_on)  # resumed before a read command's query
# Only the standard library and hiredis so far: start the embedded server of a read command now,
# so it loads its file while the rest is imported.
prestart.prestart(sys.argv[1:], os.environ)

from .interfaces import cli, terminal  # noqa: E402 - after the server has begun starting

# escaped output; SIGTERM and SIGHUP stop the command as SIGINT does; a closed pipe ends it quietly
code = terminal.run(cli.main)
prestart.abandon()  # a server begun for a command that never opened its store
if cli.quick_exit:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a closed pipe: the reader has gone
        pass
    os._exit(code)
sys.exit(code)
