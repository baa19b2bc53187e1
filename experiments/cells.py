"""How the reports write one figure in a table cell: formatted, or '-'
where there is none (a spread over one seed, a GPU figure on a CPU)."""

__all__ = ['cell']


def cell(value, spec, unit=''):
    """``value`` formatted by ``spec`` (e.g. '.2f'), with ``unit``; '-'
    when ``value`` is None."""
    return '-' if value is None else format(value, spec) + unit
