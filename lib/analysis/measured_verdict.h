/* The verdict where the recording carries thread or Python stack samples:
 * each idle class's finding gets the share the samples charged to it, and
 * the verdict is the class with the most measured idle time, or unexplained
 * when it explains too little of the lost time. */
#ifndef GW_MEASURED_VERDICT_H
#define GW_MEASURED_VERDICT_H

#include "analysis/diagnosis_model.h"

/* Run by gw_diagnose after the rules, when dx->measured; caps the shares again. */
void gw_measured_verdict(struct gw_diagnosis *dx);

#endif
