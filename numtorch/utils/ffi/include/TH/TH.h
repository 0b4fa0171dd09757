/*
 * TH.h -- numtorch's TH-style view of tensors for C extensions built with
 * numtorch.utils.ffi.create_extension.
 *
 * A function declared with THFloatTensor* (THDoubleTensor*, THLongTensor*, THIntTensor*,
 * THShortTensor*, THCharTensor*, THByteTensor*) parameters receives a numtorch tensor of
 * that dtype through a small struct: a pointer to its first element, its sizes and its
 * strides (in elements).  The helpers below read, fill, copy and add tensors of any
 * strides.  Resizing goes back to Python: the numtorch tensor itself is resized and the
 * struct is pointed at its new memory, so C code must re-read THxTensor_data() after a
 * resize.
 *
 * Errors do not abort: the failing helper does nothing, records its message, and the
 * Python wrapper raises RuntimeError with it when the C function returns.
 */
#ifndef NUMTORCH_TH_H
#define NUMTORCH_TH_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define THNT_MAX_DIMS 64

/* per-call error record shared by every tensor of one call */
typedef struct THNTContext {
    int failed;
    char message[512];
} THNTContext;

/* resizes the numtorch tensor behind `handle`; 0 on success */
typedef int (*THNTResizeFn)(void *handle, int nDimension, const long *size);

static inline void THNT_fail(THNTContext *ctx, const char *fmt, ...)
{
    va_list args;
    if (ctx == NULL || ctx->failed)
        return; /* the first error is the one reported */
    ctx->failed = 1;
    va_start(args, fmt);
    vsnprintf(ctx->message, sizeof(ctx->message), fmt, args);
    va_end(args);
}

/* Row-major walk over the elements of a strided tensor: THNTWalk_next returns the
 * offset (in elements) of the current element and moves on to the next one. */
typedef struct THNTWalk {
    long index[THNT_MAX_DIMS];
    long offset;
    int nd;
    const long *size;
    const long *stride;
} THNTWalk;

static inline void THNTWalk_init(THNTWalk *w, int nd, const long *size, const long *stride)
{
    int d;
    w->nd = nd;
    w->size = size;
    w->stride = stride;
    w->offset = 0;
    for (d = 0; d < nd; d++)
        w->index[d] = 0;
}

static inline long THNTWalk_next(THNTWalk *w)
{
    long here = w->offset;
    int d;
    for (d = w->nd - 1; d >= 0; d--) {
        if (++w->index[d] < w->size[d]) {
            w->offset += w->stride[d];
            return here;
        }
        w->offset -= (w->size[d] - 1) * w->stride[d];
        w->index[d] = 0;
    }
    return here;
}

#define THNT_DEFINE_TENSOR(Name, real)                                                     \
    typedef struct Name {                                                                  \
        real *data; /* the first element */                                                \
        long *size;                                                                        \
        long *stride;                                                                      \
        int nDimension;                                                                    \
        long storageOffset; /* always 0: data already points at the first element */       \
        THNTResizeFn resize;                                                               \
        void *handle;                                                                      \
        THNTContext *ctx;                                                                  \
    } Name;                                                                                \
                                                                                           \
    static inline real *Name##_data(const Name *t) { return t->data; }                     \
    static inline int Name##_nDimension(const Name *t) { return t->nDimension; }           \
                                                                                           \
    static inline ptrdiff_t Name##_nElement(const Name *t)                                 \
    {                                                                                      \
        ptrdiff_t n = 1;                                                                   \
        int d;                                                                             \
        for (d = 0; d < t->nDimension; d++)                                                \
            n *= t->size[d];                                                               \
        return n;                                                                          \
    }                                                                                      \
                                                                                           \
    static inline long Name##_size(const Name *t, int dim)                                 \
    {                                                                                      \
        if (dim < 0 || dim >= t->nDimension) {                                             \
            THNT_fail(t->ctx, #Name "_size: dimension %d out of range for a %dD tensor",  \
                      dim, t->nDimension);                                                 \
            return 0;                                                                      \
        }                                                                                  \
        return t->size[dim];                                                               \
    }                                                                                      \
                                                                                           \
    static inline long Name##_stride(const Name *t, int dim)                               \
    {                                                                                      \
        if (dim < 0 || dim >= t->nDimension) {                                             \
            THNT_fail(t->ctx, #Name "_stride: dimension %d out of range for a %dD tensor",\
                      dim, t->nDimension);                                                 \
            return 0;                                                                      \
        }                                                                                  \
        return t->stride[dim];                                                             \
    }                                                                                      \
                                                                                           \
    static inline int Name##_isContiguous(const Name *t)                                   \
    {                                                                                      \
        long expected = 1;                                                                 \
        int d;                                                                             \
        for (d = t->nDimension - 1; d >= 0; d--) {                                         \
            if (t->size[d] == 1)                                                           \
                continue;                                                                  \
            if (t->stride[d] != expected)                                                  \
                return 0;                                                                  \
            expected *= t->size[d];                                                        \
        }                                                                                  \
        return 1;                                                                          \
    }                                                                                      \
                                                                                           \
    static inline int Name##_isSameSizeAs(const Name *a, const Name *b)                    \
    {                                                                                      \
        int d;                                                                             \
        if (a->nDimension != b->nDimension)                                                \
            return 0;                                                                      \
        for (d = 0; d < a->nDimension; d++)                                                \
            if (a->size[d] != b->size[d])                                                  \
                return 0;                                                                  \
        return 1;                                                                          \
    }                                                                                      \
                                                                                           \
    /* contiguous sizes `size`; `stride` is accepted for TH's signature and ignored */     \
    static inline void Name##_resizeNd(Name *t, int nd, const long *size, const long *stride)\
    {                                                                                      \
        int d, same = (nd == t->nDimension);                                               \
        (void)stride;                                                                      \
        if (nd < 0 || nd > THNT_MAX_DIMS) {                                                \
            THNT_fail(t->ctx, #Name "_resize: %d dimensions (at most %d)", nd,             \
                      THNT_MAX_DIMS);                                                      \
            return;                                                                        \
        }                                                                                  \
        for (d = 0; d < nd; d++) {                                                         \
            if (size[d] < 0) {                                                             \
                THNT_fail(t->ctx, #Name "_resize: negative size %ld", size[d]);            \
                return;                                                                    \
            }                                                                              \
            if (same && t->size[d] != size[d])                                             \
                same = 0;                                                                  \
        }                                                                                  \
        if (same)                                                                          \
            return;                                                                        \
        if (t->resize == NULL) {                                                           \
            THNT_fail(t->ctx, #Name "_resize: this tensor cannot be resized");             \
            return;                                                                        \
        }                                                                                  \
        if (t->resize(t->handle, nd, size) != 0)                                           \
            THNT_fail(t->ctx, #Name "_resize: resizing the numtorch tensor failed");       \
    }                                                                                      \
                                                                                           \
    static inline void Name##_resize1d(Name *t, long s0)                                   \
    {                                                                                      \
        long s[1];                                                                         \
        s[0] = s0;                                                                         \
        Name##_resizeNd(t, 1, s, NULL);                                                    \
    }                                                                                      \
    static inline void Name##_resize2d(Name *t, long s0, long s1)                          \
    {                                                                                      \
        long s[2];                                                                         \
        s[0] = s0;                                                                         \
        s[1] = s1;                                                                         \
        Name##_resizeNd(t, 2, s, NULL);                                                    \
    }                                                                                      \
    static inline void Name##_resize3d(Name *t, long s0, long s1, long s2)                 \
    {                                                                                      \
        long s[3];                                                                         \
        s[0] = s0;                                                                         \
        s[1] = s1;                                                                         \
        s[2] = s2;                                                                         \
        Name##_resizeNd(t, 3, s, NULL);                                                    \
    }                                                                                      \
    static inline void Name##_resize4d(Name *t, long s0, long s1, long s2, long s3)        \
    {                                                                                      \
        long s[4];                                                                         \
        s[0] = s0;                                                                         \
        s[1] = s1;                                                                         \
        s[2] = s2;                                                                         \
        s[3] = s3;                                                                         \
        Name##_resizeNd(t, 4, s, NULL);                                                    \
    }                                                                                      \
    static inline void Name##_resize5d(Name *t, long s0, long s1, long s2, long s3,        \
                                       long s4)                                            \
    {                                                                                      \
        long s[5];                                                                         \
        s[0] = s0;                                                                         \
        s[1] = s1;                                                                         \
        s[2] = s2;                                                                         \
        s[3] = s3;                                                                         \
        s[4] = s4;                                                                         \
        Name##_resizeNd(t, 5, s, NULL);                                                    \
    }                                                                                      \
    static inline void Name##_resizeAs(Name *t, const Name *src)                           \
    {                                                                                      \
        Name##_resizeNd(t, src->nDimension, src->size, NULL);                              \
    }                                                                                      \
                                                                                           \
    static inline void Name##_fill(Name *t, real value)                                    \
    {                                                                                      \
        THNTWalk w;                                                                        \
        ptrdiff_t i, n = Name##_nElement(t);                                               \
        THNTWalk_init(&w, t->nDimension, t->size, t->stride);                              \
        for (i = 0; i < n; i++)                                                            \
            t->data[THNTWalk_next(&w)] = value;                                            \
    }                                                                                      \
    static inline void Name##_zero(Name *t) { Name##_fill(t, (real)0); }                   \
                                                                                           \
    /* element i of src (row-major) to element i of t; the counts must agree */            \
    static inline void Name##_copy(Name *t, const Name *src)                               \
    {                                                                                      \
        THNTWalk wt, ws;                                                                   \
        ptrdiff_t i, n = Name##_nElement(t);                                               \
        if (n != Name##_nElement(src)) {                                                   \
            THNT_fail(t->ctx, #Name "_copy: %ld elements to copy into %ld",                \
                      (long)Name##_nElement(src), (long)n);                                \
            return;                                                                        \
        }                                                                                  \
        THNTWalk_init(&wt, t->nDimension, t->size, t->stride);                             \
        THNTWalk_init(&ws, src->nDimension, src->size, src->stride);                       \
        for (i = 0; i < n; i++)                                                            \
            t->data[THNTWalk_next(&wt)] = src->data[THNTWalk_next(&ws)];                   \
    }                                                                                      \
                                                                                           \
    /* r = t + value * src, r resized like t */                                            \
    static inline void Name##_cadd(Name *r, Name *t, real value, Name *src)                \
    {                                                                                      \
        THNTWalk wr, wt, ws;                                                               \
        ptrdiff_t i, n = Name##_nElement(t);                                               \
        if (n != Name##_nElement(src)) {                                                   \
            THNT_fail(r->ctx, #Name "_cadd: sizes do not match (%ld and %ld elements)",    \
                      (long)n, (long)Name##_nElement(src));                                \
            return;                                                                        \
        }                                                                                  \
        Name##_resizeAs(r, t);                                                             \
        if (r->ctx != NULL && r->ctx->failed)                                              \
            return;                                                                        \
        THNTWalk_init(&wr, r->nDimension, r->size, r->stride);                             \
        THNTWalk_init(&wt, t->nDimension, t->size, t->stride);                             \
        THNTWalk_init(&ws, src->nDimension, src->size, src->stride);                       \
        for (i = 0; i < n; i++) {                                                          \
            long ot = THNTWalk_next(&wt), os = THNTWalk_next(&ws);                         \
            r->data[THNTWalk_next(&wr)] = (real)(t->data[ot] + value * src->data[os]);     \
        }                                                                                  \
    }                                                                                      \
                                                                                           \
    /* r = t * src element-wise, r resized like t */                                       \
    static inline void Name##_cmul(Name *r, Name *t, Name *src)                            \
    {                                                                                      \
        THNTWalk wr, wt, ws;                                                               \
        ptrdiff_t i, n = Name##_nElement(t);                                               \
        if (n != Name##_nElement(src)) {                                                   \
            THNT_fail(r->ctx, #Name "_cmul: sizes do not match (%ld and %ld elements)",    \
                      (long)n, (long)Name##_nElement(src));                                \
            return;                                                                        \
        }                                                                                  \
        Name##_resizeAs(r, t);                                                             \
        if (r->ctx != NULL && r->ctx->failed)                                              \
            return;                                                                        \
        THNTWalk_init(&wr, r->nDimension, r->size, r->stride);                             \
        THNTWalk_init(&wt, t->nDimension, t->size, t->stride);                             \
        THNTWalk_init(&ws, src->nDimension, src->size, src->stride);                       \
        for (i = 0; i < n; i++) {                                                          \
            long ot = THNTWalk_next(&wt), os = THNTWalk_next(&ws);                         \
            r->data[THNTWalk_next(&wr)] = (real)(t->data[ot] * src->data[os]);             \
        }                                                                                  \
    }                                                                                      \
                                                                                           \
    /* r = t + value and r = t * value, r resized like t */                                \
    static inline void Name##_add(Name *r, Name *t, real value)                            \
    {                                                                                      \
        THNTWalk wr, wt;                                                                   \
        ptrdiff_t i, n = Name##_nElement(t);                                               \
        Name##_resizeAs(r, t);                                                             \
        if (r->ctx != NULL && r->ctx->failed)                                              \
            return;                                                                        \
        THNTWalk_init(&wr, r->nDimension, r->size, r->stride);                             \
        THNTWalk_init(&wt, t->nDimension, t->size, t->stride);                             \
        for (i = 0; i < n; i++) {                                                          \
            long ot = THNTWalk_next(&wt);                                                  \
            r->data[THNTWalk_next(&wr)] = (real)(t->data[ot] + value);                     \
        }                                                                                  \
    }                                                                                      \
    static inline void Name##_mul(Name *r, Name *t, real value)                            \
    {                                                                                      \
        THNTWalk wr, wt;                                                                   \
        ptrdiff_t i, n = Name##_nElement(t);                                               \
        Name##_resizeAs(r, t);                                                             \
        if (r->ctx != NULL && r->ctx->failed)                                              \
            return;                                                                        \
        THNTWalk_init(&wr, r->nDimension, r->size, r->stride);                             \
        THNTWalk_init(&wt, t->nDimension, t->size, t->stride);                             \
        for (i = 0; i < n; i++) {                                                          \
            long ot = THNTWalk_next(&wt);                                                  \
            r->data[THNTWalk_next(&wr)] = (real)(t->data[ot] * value);                     \
        }                                                                                  \
    }

THNT_DEFINE_TENSOR(THFloatTensor, float)
THNT_DEFINE_TENSOR(THDoubleTensor, double)
THNT_DEFINE_TENSOR(THLongTensor, long)
THNT_DEFINE_TENSOR(THIntTensor, int)
THNT_DEFINE_TENSOR(THShortTensor, short)
THNT_DEFINE_TENSOR(THCharTensor, char)
THNT_DEFINE_TENSOR(THByteTensor, unsigned char)

#endif /* NUMTORCH_TH_H */
