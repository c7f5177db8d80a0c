/* CUPTI activity records -> the tracer's wire records (convert.c). */
#ifndef GW_TRACER_CONVERT_H
#define GW_TRACER_CONVERT_H

#include <cupti.h>
#include <stdint.h>

/* Writes the wire record(s) of one activity record; call with the output
 * lock held (tracer_out.h). Kinds it does not know are skipped. */
void gwt_convert_locked(const CUpti_Activity *rec);

/* Marks an API call (runtime or driver domain, CUPTI callback id) as kept;
 * API records of calls not marked are dropped. */
void gwt_convert_keep_api(int runtime_domain, uint32_t cbid);

/* 1 once a record of a CUDA graph (a kernel or copy with a graph id, a graph
 * launch) has been converted. */
int gwt_convert_saw_graph(void);

/* end_ns, or start_ns when CUPTI gave an end before the start. */
uint64_t gwt_sane_end(uint64_t start_ns, uint64_t end_ns);

#endif
