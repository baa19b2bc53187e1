"""Progress of the frozen evaluation's long steps, and mmengine's
per-parameter INFO lines kept off the console.

The evaluation functions take ``progress``: None or False, quiet (the
suite, the study); True, mmengine progress bars on stderr
(:class:`ProgressBars`); or a callable ``progress(title, total)`` that
returns ``tick()``, called once per step of the ``total`` steps of the
stage ``title`` (a batch of images, a probe's epoch, a chunk of k-NN
queries).
"""
import contextlib
import logging
import sys

__all__ = ['ProgressBars', 'epoch_count', 'progress_reporter',
           'quiet_mmengine_info', 'stage', 'with_prefix']


class ProgressBars:
    """Reports each stage as its title on a line, then mmengine's
    ``ProgressBar`` over its steps, as OpenMMLab's tools show progress.

    Args:
        prefix (str): put before every title (e.g. 'random encoder: ').
        file (file | None): where (default: ``sys.stderr`` when called,
            away from the results that tools print on stdout).
    """

    def __init__(self, prefix='', file=None):
        self.prefix = prefix
        self.file = file

    def __call__(self, title, total):
        from mmengine.utils import ProgressBar
        file = self.file or sys.stderr
        file.write(f'{self.prefix}{title}\n')
        bar = ProgressBar(total, file=file)

        def tick():
            bar.update()
            if bar.completed == total:
                file.write('\n')
                file.flush()

        return tick


def progress_reporter(progress):
    """The callable ``progress(title, total) -> tick`` of a ``progress``
    argument, or None for quiet (None or False)."""
    if progress is None or progress is False:
        return None
    if progress is True:
        return ProgressBars()
    if not callable(progress):
        raise ValueError('progress must be None, True, False or a callable '
                         f'(title, total) -> tick, got {progress!r}')
    return progress


def stage(report, title, total):
    """The tick of a progress stage: ``report(title, total)``, or None when
    quiet (``report`` None)."""
    return None if report is None else report(title, total)


def epoch_count(count):
    """'1 epoch', '90 epochs': a stage title's wording."""
    return f'{count} epoch{"s" if count != 1 else ""}'


def with_prefix(progress, prefix):
    """``progress`` (see :func:`progress_reporter`) with ``prefix`` before
    each stage's title; None stays None."""
    report = progress_reporter(progress)
    if report is None:
        return None
    return lambda title, total: report(prefix + title, total)


@contextlib.contextmanager
def quiet_mmengine_info():
    """mmengine's current logger at WARNING inside the block.

    Building a model logs every parameter's initialisation
    (``init_weights``) at INFO, hundreds of lines for a ViT, on the console
    of a process without a Runner (whose log file takes them instead).
    Warnings and errors still show.
    """
    from mmengine.logging import MMLogger
    logger = MMLogger.get_current_instance()
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)
