"""`concord bench`: the performance benchmark, measured in one process on one
loaded model, each figure reported with what it was compared with and its target.

records        the generated patient (≥ 4k tokens) and the 500 kB alignment record
model_measures prefix reuse, constrained vs free decoding, the full panel (with a UI probe)
text_measures  alignment and screen throughput
timing         time inside the model, decode rates, peak memory
figures        a figure, its target, and `met` computed from both
targets        the targets, and the figures built from the measurements
machine        threads, batch and GPU settings the model ran with
run            `run_bench`, the fixed order of the measurements
report         JSON and table rows; a miss is always listed
"""
