/* The registry line of the test-only seventh class (rule_test_always.c). */
GW_RULE(test_always)
