/* A seventeenth wire record kind, TEST_SPAN, compiled only into
 * test_wire_kind_17 (GW_WIRE_EXTRA_KINDS names this file): everything a kind
 * with the shared checks needs is here, in one table row, its fields and its
 * columns. */
#ifndef GW_TEST_WIRE_KINDS_EXTRA_H
#define GW_TEST_WIRE_KINDS_EXTRA_H

#define GW_WIRE_EXTRA_KINDS_(FIXED, TEXT) FIXED(TEST_SPAN, 17, test_span, 32, trace_test_span, "", SPAN)
#define GW_WIRE_FIELDS_TEST_SPAN(F) GW_WIRE_SPAN_FIELDS(F) F(uint32_t, device) F(uint32_t, value)
#define GW_WIRE_COLUMNS_TEST_SPAN(C)                                                                                   \
  C(pid, "INTEGER NOT NULL", INT, pid)                                                                                 \
  C(device, "INTEGER", INT, r->device)                                                                                 \
  GW_WIRE_SPAN_COLUMNS(C)                                                                                              \
  C(value, "INTEGER", NONZERO, r->value)

#endif
