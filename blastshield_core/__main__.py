import os
import sys

# BlastShield's models use no pydantic plugin, and looking for one reads the metadata of every
# installed package (about 30 ms of each command). Set the variable to re-enable plugins.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from . import cli

code = cli.main()
if cli.quick_exit:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a closed pipe: the reader has gone
        pass
    os._exit(code)
sys.exit(code)
