"""The command line parser every tool builds: argparse's, with the tool's
path arguments declared (:mod:`.paths`) and checked as it parses, and its
mistakes on one line."""
import argparse
import sys

from .args import HelpFormatter
from .paths import PathArgument, check_paths

__all__ = ['ToolParser']


class ToolParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose ``parse_args`` also checks the
    declared paths (:func:`.paths.check_paths`), and whose errors are one
    line (``prog: error: ...``) with exit code 2, as
    :func:`~.run_tool.run_tool` reports the tool's own.

    The help is the tool's whole description and every option's default
    (:class:`~.args.HelpFormatter`). Its ``prog`` defaults to the script's
    path as run, the name ``run_tool`` gives the tool's other refusals
    (argparse's own default is the file name alone).
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault('formatter_class', HelpFormatter)
        if not args:
            kwargs.setdefault('prog', sys.argv[0])
        super().__init__(*args, **kwargs)
        self.path_arguments = []

    def add_path(self, *flags, kind, group=None, suffixes=(),
                 may_be_folder=False, not_a_path=None, default_from=None,
                 **kwargs):
        """``add_argument(*flags, **kwargs)`` of a path argument, declared
        as ``kind`` (one of :data:`.paths.PATH_KINDS`): its checks follow.

        Args:
            group: the argument group to add it to (a mutually exclusive
                one); None: the parser.
            suffixes, may_be_folder, not_a_path, default_from: see
                :class:`.paths.PathArgument`.

        Returns:
            argparse.Action
        """
        action = (group or self).add_argument(*flags, **kwargs)
        name = action.option_strings[0] if action.option_strings else \
            action.dest
        self.path_arguments.append(PathArgument(
            action.dest, name, kind, tuple(suffixes), may_be_folder,
            not_a_path, default_from))
        return action

    def parse_args(self, args=None, namespace=None):
        """The parsed namespace, every declared path checked.

        Raises:
            UserError: a path that its kind refuses, naming the argument.
        """
        parsed = super().parse_args(args, namespace)
        for argument in self.path_arguments:
            if argument.default_from and getattr(parsed, argument.dest) is \
                    None:
                setattr(parsed, argument.dest, argument.default_from(parsed))
        check_paths(self.path_arguments, parsed)
        return parsed

    def error(self, message):
        """One line and exit code 2, as the tool's other refusals (argparse
        prints its usage first; ``--help`` shows it)."""
        self.exit(2, f'{self.prog}: error: {message}\n')

