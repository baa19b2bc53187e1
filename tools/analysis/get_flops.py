"""Parameters and FLOPs of a RandSAC config's pretraining forward pass:
multiply-accumulates of one image, one sampled layout (see
``randsac_mm.analysis.flops`` for what is counted).

    python tools/analysis/get_flops.py CONFIG [--compare-architectures]
        [--full-length]

``--full-length`` counts every token in both the encoder and the decoder
(no segment left out), the sequence lengths the paper's figures match.
"""

from randsac_mm.cli.args import add_cfg_options, seed_value
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import CONFIG, OUTPUT_FILE
from randsac_mm.cli.run_tool import run_tool


def human(macs):
    return f'{macs / 1e9:.2f} G' if macs >= 1e9 else f'{macs / 1e6:.2f} M'


def main(argv=None):
    parser = ToolParser(description=__doc__)
    parser.add_path('config', kind=CONFIG,
                    help='a RandSAC pretraining config')
    parser.add_argument('--compare-architectures', action='store_true',
                        help='also count the two-stream, masked transformer '
                        'and transformer-skip variants of the config, next '
                        "to the paper's figures")
    parser.add_argument('--seed', type=seed_value, default=0,
                        help='seed of the sampled segment layout')
    parser.add_path('--out', kind=OUTPUT_FILE,
                    help='also write the figures to this JSON; None: not '
                    'written')
    parser.add_argument('--full-length', action='store_true',
                        help='count all N tokens in encoder and decoder')
    add_cfg_options(parser, 'key=value config overrides; None: none')
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    # After the arguments are checked: a mistake is reported at once.
    from mmengine.registry import init_default_scope

    import randsac_mm.registration  # noqa: F401
    from randsac_mm.analysis.flops import (
        ARCHITECTURES,
        architecture_variant,
        count,
        sample_token_rank,
    )
    from randsac_mm.analysis.paper import paper_architecture_flops
    from randsac_mm.cli.config_file import apply_cfg_options, read_config
    from randsac_mm.run.builds import (
        build_segment_generator,
        check_model_builds,
    )
    cfg = read_config(args.config)
    if args.cfg_options:
        apply_cfg_options(cfg, args.cfg_options)
    build_segment_generator(cfg, 'config', args.config)  # FLOPs need it
    check_model_builds(cfg)  # a key no class takes: one line naming it
    init_default_scope('mmpretrain')
    token_rank, num_segments = sample_token_rank(cfg, args.seed)
    names = ARCHITECTURES if args.compare_architectures else ('config', )
    backbone = cfg.model['backbone']
    paper = paper_architecture_flops(backbone)
    rows = []
    for name in names:
        model_cfg = cfg.model if name == 'config' else architecture_variant(
            cfg.model, name)
        macs, parts, params = count(model_cfg, token_rank, args.full_length)
        paper_figure = None
        if paper and name in ARCHITECTURES:
            paper_figure = paper[1][name]
        rows.append(dict(architecture=name, macs=macs, flops=human(macs),
                         paper=paper_figure, macs_by_part=parts,
                         params=params))
    print(f'config: {args.config}')
    length = 'all tokens in encoder and decoder' if args.full_length else \
        'encoder without the last segment, decoder without the first'
    print(f'one image, {num_segments} segments, {token_rank.shape[1]} tokens '
          f'({length}); FLOPs = multiply-accumulates of the forward pass')
    print(f"{'architecture':18s} {'FLOPs':>10s} {'paper':>10s} "
          f"{'enc FLOPs':>10s} {'dec FLOPs':>10s} {'enc par':>8s} "
          f"{'dec par':>8s}")
    for row in rows:
        p, m = row['params'], row['macs_by_part']
        print(f"{row['architecture']:18s} {row['flops']:>10s} "
              f"{row['paper'] or '-':>10s} {human(m['backbone']):>10s} "
              f"{human(m['neck']):>10s} {p['backbone'] / 1e6:7.2f}M "
              f"{p['neck'] / 1e6:7.2f}M")
    if args.out:
        from randsac_mm.checkpoint import write_json
        write_json(args.out, dict(config=args.config, seed=args.seed,
                                  num_segments=num_segments, rows=rows))


if __name__ == '__main__':
    run_tool(main)
