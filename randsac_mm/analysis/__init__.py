"""What a config costs and what the paper reports for it: the memory of a
pretraining step (``memory``), its FLOPs (``flops``), and the paper's
figures from the installed metafile (``paper``). Import the modules: this
package imports none of them, as ``memory`` and ``flops`` load torch and
mmpretrain and ``paper`` loads neither."""
