import os
import sys

# BlastShield's models use no pydantic plugin, and looking for one reads the metadata of every
# installed package (about 30 ms of each command). Set the variable to re-enable plugins.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from .cli import main

sys.exit(main())
