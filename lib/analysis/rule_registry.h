/* The registry of bottleneck classes: one line per class, in the order the
 * rules run and `gpuwhy explain` lists them. A class is its rule file
 * (rule_<id>.c, which defines the row gw_class_<id>: id, ledger row,
 * evaluator), its line here and its words (render/class_text.c: title and
 * explain texts); everything that lists the
 * classes (findings array, explain, JSON, HTML colours, Prometheus labels,
 * compare) reads the registry.
 * Included with GW_RULE(id) defined, so no include guard. */
GW_RULE(input_pipeline)
GW_RULE(small_batch)
GW_RULE(launch_overhead)
GW_RULE(multi_gpu_sync)
GW_RULE(hardware_env)
GW_RULE(schedule_shape)
#ifdef GW_EXTRA_RULES
/* Test builds only: tests/CMakeLists.txt names a header with more lines
 * (tests/rule7/); no product target defines GW_EXTRA_RULES. */
#include GW_EXTRA_RULES
#endif
