from randsac_mm.cli.errors import run_tool

from .cli import PROG, main

run_tool(main, prog=PROG)
