/* The words of ids the analysis names without wording them: ledger rows,
 * straggler causes, NCCL advice, idle causes. A table per kind in label_text.c; each
 * *_text function returns the text translated for people; JSON takes the
 * English (*_english, or the ids). */
#ifndef GW_LABEL_TEXT_H
#define GW_LABEL_TEXT_H

#include <stddef.h>

#include "analysis/idle_attribution.h"
#include "analysis/multi_gpu.h"
#include "analysis/nccl_transport.h"

/* The title of a ledger row id (gw_ledger_row_id) or of a variant the
 * report shows (gw_diagnosis_row_title_id); an unknown id as it is. */
const char *gw_row_title(const char *id);
/* A few words for people ("more compute per step than the others"). */
const char *gw_straggler_cause_text(enum gw_straggler_cause c);
/* What happened and what to check; "" for no advice. */
const char *gw_nccl_advice_text(enum gw_nccl_advice a);
/* The same advice in English (JSON). */
const char *gw_nccl_advice_english(enum gw_nccl_advice a);
/* The idle cause in words ("waiting for the next batch"), translated. */
const char *gw_idle_cause_text(int cause);
/* For an unexplained verdict of a sampled recording: what the training
 * thread did through most of the GPU's idle time, its user frame and the
 * share ("While the GPU sat idle, the training thread was sleeping or
 * waiting on its own threads (fetch.py:38 in get) 93% of the time."),
 * translated, into buf. 0 (buf "") when no sample named an activity. */
int gw_idle_largest_activity_text(const struct gw_idle_attribution *attr, int ngpus, char *buf, size_t cap);
/* The English message of a phrase id a GW_PHRASE value carries,
 * untranslated: an idle cause's words where the phrase is its id
 * (gw_idle_cause_phrase), a row of the phrase table in label_text.c
 * ("p2p_unavailable"), else the phrase as it is. */
const char *gw_phrase_msgid(const char *phrase);

#endif
