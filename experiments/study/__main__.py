"""python -m experiments.study"""
from randsac_mm.cli.errors import run_tool

from .cli import main
from .plan import PROG

run_tool(main, prog=PROG)
