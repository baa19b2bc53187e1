from randsac_mm.cli.run_tool import interrupt_quietly, run_tool

interrupt_quietly(f'python -m {__package__}')  # before the imports below

from .cli import PROG, main  # noqa: E402

run_tool(main, prog=PROG)
