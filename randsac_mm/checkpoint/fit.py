"""Whether a checkpoint's weights fit a model, and the one refusal when they
do not.

Every path that puts a checkpoint into a model checks it here first:
testing and resuming (``tools/test.py``, ``tools/train.py --resume``), the
frozen evaluation, the pictures and the export (``evaluation.
load_weights``), and a backbone's ``Pretrained`` initialisation
(``check_pretrained_checkpoint``). mmengine loads with ``strict=False`` and
only logs what did not load, so a checkpoint of another model would test,
evaluate or fine-tune weights left as initialised. The refusal names the
keys, what loading would do, what the checkpoint looks like, and what to do
instead: the advice is the table ``ADVICE``.
"""
import re

__all__ = ['ADVICE', 'DROPPED', 'EFFECTS', 'LOOKS_LIKE', 'NOT_REQUIRED',
           'RESIZED_ON_LOAD', 'check_fit', 'few', 'guess_kind',
           'stop_resuming', 'summarise_keys', 'weight_mismatch']

# Keys whose shape the model adapts on load (mmpretrain's VisionTransformer
# resizes its position embedding to its grid).
RESIZED_ON_LOAD = ('pos_embed', )
# BatchNorm's counter, which mmengine does not require either.
NOT_REQUIRED = ('num_batches_tracked', )

# What a checkpoint looks like: the kind of the config stored in it, or a
# guess from its keys (``guess_kind``).
LOOKS_LIKE = {
    'pretraining': 'a pretraining checkpoint (RandSAC, MAE)',
    'encoder': 'an encoder-only checkpoint (no backbone. prefix: '
               'tools/model_converters output)',
    'backbone': 'a backbone-only checkpoint',
    'classifier': 'a classifier checkpoint',
    'segmentation': 'a segmentation checkpoint',
    'detection': 'a detection checkpoint',
    'other': 'a checkpoint of another model',
}
# Key prefixes only a pretraining model has: RandSAC's predictor, MAE's
# decoder and mask token, and those each segment decoder declares
# (``models.necks.SegmentDecoder.pretraining_keys``, registered when its
# class is defined: :func:`register_pretraining_keys`).
PRETRAINING_KEYS = ['head.predictor.', 'neck.mask_token', 'neck.decoder',
                    'target_generator.']


def register_pretraining_keys(prefixes):
    """Adds key prefixes that only a pretraining checkpoint holds (a
    segment decoder's: its class declares them)."""
    PRETRAINING_KEYS.extend(p for p in prefixes
                            if p not in PRETRAINING_KEYS)

# What loading a checkpoint that does not fit would do, by purpose; where
# every weight of the model is there and only the checkpoint has more,
# ``DROPPED`` instead.
DROPPED = 'loading would drop its other weights without a word'
EFFECTS = {
    'test': 'testing would score weights left as initialised',
    'resume': "it cannot resume this config's model and optimizer",
    'evaluate': 'the model would run with weights left as initialised',
    'init': 'mmengine would load only what matches and leave the rest as '
            'initialised, with no error',
}
# What to do instead, by purpose and by what the checkpoint looks like
# (None: any other kind). ``{path}`` is the checkpoint given, ``{unresume}``
# how the user stops the resume (:func:`stop_resuming`).
_ENCODER = ('pretraining', 'encoder', 'backbone')
ADVICE = {
    ('test', _ENCODER):
        'fine-tune or linear-probe it first with tools/train.py '
        '(--cfg-options model.backbone.init_cfg.checkpoint={path}), or '
        'evaluate it frozen with tools/analysis/eval_frozen.py',
    ('test', None): 'test it with the config it was trained with',
    ('resume', _ENCODER):
        'resume it with the config it was trained with; to start from its '
        'encoder, {unresume} and give --cfg-options '
        'model.backbone.init_cfg.checkpoint={path}',
    ('resume', None): 'resume it with the config it was trained with, or '
                      '{unresume} to start a new run',
    ('evaluate', None): 'give a checkpoint of that config, or the config '
                        'it was trained with',
    ('init', None): "use a config whose backbone has the checkpoint's "
                    'depth and type',
}


def stop_resuming(argument):
    """How a user stops the resume ``argument`` asked for: a tool's flag
    ('--resume') is dropped, a config's own ``resume`` is turned off."""
    if argument.startswith('--'):
        return f'drop {argument}'
    return 'set resume=False (--cfg-options resume=False)'


def advice(purpose, kind):
    """The ``ADVICE`` entry for ``purpose`` and a checkpoint of ``kind``."""
    for (row, kinds), text in ADVICE.items():
        if row == purpose and kinds is not None and kind in kinds:
            return text
    return ADVICE[purpose, None]


def weight_mismatch(expected, state, not_expected=(), may_remain=()):
    """How a checkpoint's weights fit a model's.

    Args:
        expected (dict): the model's ``state_dict()`` (or its shapes).
        state (dict): the checkpoint's.
        not_expected (tuple[str]): key prefixes of the model that the
            checkpoint need not hold (parts that exist only downstream).
        may_remain (Iterable[str]): keys of the checkpoint the model
            knowingly leaves unused.

    Returns:
        tuple[list[str]]: the model's keys the checkpoint lacks (but
        ``NOT_REQUIRED``), the checkpoint's keys the model lacks, and
        ``'key (shape) vs (shape)'`` of the keys whose shapes differ (but
        ``RESIZED_ON_LOAD``); all empty when it fits.
    """
    not_expected, may_remain = tuple(not_expected), set(may_remain)
    missing = [k for k in expected if k not in state
               and not k.endswith(NOT_REQUIRED)
               and not (not_expected and k.startswith(not_expected))]
    unexpected = [k for k in state
                  if k not in expected and k not in may_remain]
    reshaped = []
    for key in expected:
        if key in state and not key.endswith(RESIZED_ON_LOAD):
            mine = tuple(expected[key].shape)
            theirs = tuple(getattr(state[key], 'shape', ()))
            if mine != theirs:
                reshaped.append(f'{key} {theirs} vs {mine}')
    return missing, unexpected, reshaped


def summarise_keys(keys):
    """Keys with each run of numbered layers collapsed:
    'backbone.layers.12.attn.qkv.weight', ... -> 'backbone.layers.12-14.*'.
    """
    spans, rest = {}, []
    for key in keys:
        match = re.match(r'(.*?\blayers)\.(\d+)\.', key)
        if match:
            spans.setdefault(match.group(1), set()).add(int(match.group(2)))
        else:
            rest.append(key)
    collapsed = []
    for prefix, layers in spans.items():
        low, high = min(layers), max(layers)
        collapsed.append(f'{prefix}.{low}-{high}.*' if high > low
                         else f'{prefix}.{low}.*')
    return collapsed + rest


def few(keys, count=4):
    """The first ``count`` of ``keys``, and '...' when there are more."""
    keys = list(keys)
    return ', '.join(keys[:count]) + (', ...' if len(keys) > count else '')


def _count(items, noun):
    return f'{len(items)} {noun}{"" if len(items) == 1 else "s"}'


def _are(items):
    return 'is' if len(items) == 1 else 'are'


def guess_kind(state):
    """What a checkpoint looks like from its keys: a key of ``LOOKS_LIKE``
    (use the kind of the config stored in it where there is one)."""
    prefixes = {k.split('.', 1)[0] for k in state}
    if any(k.startswith(tuple(PRETRAINING_KEYS)) for k in state):
        return 'pretraining'
    if 'decode_head' in prefixes:
        return 'segmentation'
    if prefixes & {'rpn_head', 'roi_head', 'bbox_head'}:
        return 'detection'
    if 'backbone' not in prefixes:
        return 'encoder'
    if prefixes == {'backbone'}:
        return 'backbone'
    if 'head' in prefixes:
        return 'classifier'
    return 'other'


def check_fit(expected, state, argument, path, purpose,
              target='the model of the config', kind=None, suggestion=None,
              error=ValueError, **mismatch):
    """Raises ``error`` unless ``state`` fits ``expected``.

    Args:
        expected (dict): the model's ``state_dict()``.
        state (dict): the checkpoint's (``read_checkpoint``).
        argument (str): what gave the checkpoint ('checkpoint',
            '--resume', 'init_cfg.checkpoint', the config's ``load_from``).
        path (str): the checkpoint file, as given.
        purpose (str): a key of ``EFFECTS``.
        target (str): what it is checked against, for the message.
        kind (str | None): what the checkpoint looks like, a key of
            ``LOOKS_LIKE`` (None: ``guess_kind``).
        suggestion (str | None): what to do instead, over the ``ADVICE``
            table's.
        error (type): the exception raised (a ValueError subclass).
        **mismatch: ``not_expected`` and ``may_remain`` of
            :func:`weight_mismatch`.

    Raises:
        error: naming the keys, the effect, the kind and the advice.
    """
    missing, unexpected, reshaped = weight_mismatch(expected, state,
                                                    **mismatch)
    if not (missing or unexpected or reshaped):
        return
    problems = []
    if missing:
        problems.append(f'{len(missing)} of its {len(expected)} weights '
                        f'{_are(missing)} not in it '
                        f'({few(summarise_keys(missing))})')
    if unexpected:
        problems.append(f'it holds {_count(unexpected, "weight")} {target} '
                        f'lacks ({few(summarise_keys(unexpected), 3)})')
    if reshaped:
        has = 'has' if len(reshaped) == 1 else 'have'
        problems.append(f'{len(reshaped)} {has} another shape '
                        f'({few(reshaped, 2)})')
    kind = kind or guess_kind(state)
    looks = LOOKS_LIKE.get(kind, f'a checkpoint of a {kind} config')
    todo = suggestion or advice(purpose, kind).format(
        path=path, unresume=stop_resuming(argument))
    effect = EFFECTS[purpose] if missing or reshaped else DROPPED
    raise error(f'{argument}: {path} does not fit {target}: '
                + '; '.join(problems)
                + f', so {effect}. It looks like {looks}: {todo}')
