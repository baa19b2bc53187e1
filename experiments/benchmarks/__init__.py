"""Benchmarks: commands that time one thing and write a JSON of it with
the machine and the commit (``..benchmark_io``), run from the repository
root as ``python -m experiments.benchmarks.<name>``:

- ``throughput``: a pretraining step against the reference model and MAE;
- ``data_pipeline``: images per second one dataloader worker prepares;
- ``small_images_speed``: the two data paths for small images;
- ``paper_scale_speed``: a paper-scale row's whole training step;
- ``layout_speed``: the time to draw one segment layout;
- ``blob_counts``: the segments and partitions the blob configs give;
- ``cpu_precision``: the CPU's jobs in float32 and in bf16;
- ``gpu_acceptance``: a new GPU node's acceptance run;
- ``step_profile``: where one training step's time goes (top kernels).
"""
