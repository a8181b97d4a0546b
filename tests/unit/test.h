/* Common includes for cmocka unit tests. */
#ifndef FOM_TEST_H
#define FOM_TEST_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* Relative comparison of doubles with a message on failure. */
#define assert_close(got, want, rel)                                           \
    do {                                                                       \
        double g_ = (got), w_ = (want);                                        \
        double d_ = g_ - w_;                                                   \
        if (d_ < 0) d_ = -d_;                                                  \
        double s_ = w_ < 0 ? -w_ : w_;                                         \
        if (!(d_ <= (rel) * s_ || d_ <= 1e-300))                               \
            fail_msg("%s = %.17g, expected %.17g (rel %g)", #got, g_, w_,      \
                     (double)(rel));                                           \
    } while (0)

#endif
