/* The message of the test-only class's evidence (rule_test_always.c): a row
 * of the message table in lib/render/evidence_text.c, which includes this
 * file only when GW_EXTRA_EVIDENCE_MESSAGES names it. Not marked for
 * translation: the test build has no catalog for it. */
{"test_always_gpus", "seventh-rule evidence: %d GPU(s)", {"gpus"}},
