/* The main() of a cmocka test program: runs the file's table of tests as one
 * group, so each test file lists its tests and nothing else. Header-only;
 * include after <cmocka.h>. */
#ifndef GW_SUPPORT_TEST_MAIN_H
#define GW_SUPPORT_TEST_MAIN_H

/* Defines main(): the tests of the array `tests` (its name is the group's
 * name in cmocka's output), with the group setup and teardown (NULL: none). */
#define SUPPORT_TEST_MAIN(tests, group_setup, group_teardown)                                                          \
  int main(void) {                                                                                                     \
    return cmocka_run_group_tests(tests, group_setup, group_teardown);                                                 \
  }

#endif
