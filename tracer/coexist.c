/* Interposers for the CUPTI functions another client calls to arrive
 * (cuptiSubscribe, cuptiSubscribe_v2, cuptiActivityRegisterCallbacks) and
 * to leave (cuptiUnsubscribe, cuptiFinalize). They are seen by the program
 * only when the tracer is in LD_PRELOAD (gpuwhy record puts it there): the
 * dynamic linker then binds the program's calls to these definitions before
 * libcupti's. Each one tells the tracer (coexist.h) and then calls the real
 * function with the same arguments, so the client gets exactly what CUPTI
 * answers. The tracer's own CUPTI calls go through pointers into libcupti
 * and never come here; neither do libcupti's calls to itself (the caller is
 * checked), so only a real client moves the tracer aside.
 *
 * Why: with CUDA 13.0 and driver 580 CUPTI serves one client. Kineto in
 * PyTorch 2.11 subscribes when torch.profiler first starts and, if that
 * fails, profiles the CPU only for the rest of the process (measured: 0 CUDA
 * events under --trace=full); newer Kineto registers its activity buffers
 * without subscribing, which would silently split records between the two. */

#include <dlfcn.h>

#include "coexist.h"

#define GWT_EXPORT __attribute__((visibility("default")))

/* 1 when the caller is outside libcupti (a client), 0 for libcupti calling
 * its own exported functions. */
static int called_by_client(const void *return_address, const void *real_fn) {
  Dl_info caller, cupti;
  if (!dladdr(return_address, &caller) || !dladdr(real_fn, &cupti))
    return 1;
  return caller.dli_fbase != cupti.dli_fbase;
}

#define REAL(name) ((__typeof__(&name))gwt_cupti_symbol(#name))

GWT_EXPORT CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                                               void *userdata) {
  __typeof__(&cuptiSubscribe) real = REAL(cuptiSubscribe);
  if (!real)
    return CUPTI_ERROR_NOT_INITIALIZED;
  if (!called_by_client(__builtin_return_address(0), (const void *)real))
    return real(subscriber, callback, userdata);
  gwt_client_arriving("cuptiSubscribe");
  CUptiResult rc = real(subscriber, callback, userdata);
  gwt_client_subscribed(rc, rc == CUPTI_SUCCESS && subscriber ? *subscriber : NULL);
  return rc;
}

GWT_EXPORT CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                                                  void *userdata, CUpti_SubscriberParams *params) {
  __typeof__(&cuptiSubscribe_v2) real = REAL(cuptiSubscribe_v2);
  if (!real)
    return CUPTI_ERROR_NOT_INITIALIZED;
  if (!called_by_client(__builtin_return_address(0), (const void *)real))
    return real(subscriber, callback, userdata, params);
  gwt_client_arriving("cuptiSubscribe_v2");
  CUptiResult rc = real(subscriber, callback, userdata, params);
  gwt_client_subscribed(rc, rc == CUPTI_SUCCESS && subscriber ? *subscriber : NULL);
  return rc;
}

GWT_EXPORT CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                               CUpti_BuffersCallbackCompleteFunc complete) {
  __typeof__(&cuptiActivityRegisterCallbacks) real = REAL(cuptiActivityRegisterCallbacks);
  if (!real)
    return CUPTI_ERROR_NOT_INITIALIZED;
  if (called_by_client(__builtin_return_address(0), (const void *)real))
    gwt_client_arriving("cuptiActivityRegisterCallbacks");
  return real(request, complete);
}

GWT_EXPORT CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
  __typeof__(&cuptiUnsubscribe) real = REAL(cuptiUnsubscribe);
  if (!real)
    return CUPTI_ERROR_NOT_INITIALIZED;
  int client = called_by_client(__builtin_return_address(0), (const void *)real);
  CUptiResult rc = real(subscriber);
  if (client && rc == CUPTI_SUCCESS)
    gwt_client_unsubscribed(subscriber);
  return rc;
}

GWT_EXPORT CUptiResult CUPTIAPI cuptiFinalize(void) {
  __typeof__(&cuptiFinalize) real = REAL(cuptiFinalize);
  if (!real)
    return CUPTI_ERROR_NOT_INITIALIZED;
  int client = called_by_client(__builtin_return_address(0), (const void *)real);
  CUptiResult rc = real();
  if (client && rc == CUPTI_SUCCESS)
    gwt_client_finalized();
  return rc;
}
