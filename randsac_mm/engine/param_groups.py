"""One optimizer group per distinct setting, not per parameter.

mmengine's ``DefaultOptimWrapperConstructor`` with a ``paramwise_cfg``
makes a group for every parameter (313 for the main config), and a fused
or multi-tensor optimizer then launches its kernels once per group: the
step of 313 one-tensor groups costs what three groups (decay, no decay, no
decay by custom key) would cost 100 times over. AdamW updates each element
from its own gradient and state, so which group a parameter sits in changes
nothing but the launches.
"""

__all__ = ['merge_param_groups']


def merge_param_groups(groups):
    """Joins the groups whose settings (every key but ``params``) are
    equal, keeping the order in which each setting first appears and the
    order of the parameters.

    Args:
        groups (list[dict]): torch optimizer param groups, each with
            ``params`` (a list of tensors) and its settings (``lr``,
            ``weight_decay``, ...).

    Returns:
        list[dict]: new groups; the settings dicts are copies.
    """
    merged = {}
    for group in groups:
        settings = {k: v for k, v in group.items() if k != 'params'}
        key = repr(sorted(settings.items()))
        if key not in merged:
            merged[key] = dict(settings, params=[])
        merged[key]['params'].extend(group['params'])
    return list(merged.values())
