"""python -m experiments.small_scale"""
from randsac_mm.cli.run_tool import interrupt_quietly, run_tool

interrupt_quietly(f'python -m {__package__}')  # before the imports below

from .cli import main  # noqa: E402
from .plan import PROG  # noqa: E402

run_tool(main, prog=PROG)
