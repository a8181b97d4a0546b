/* Readers of measured kernel tables into a struct kernel_set
 * (model/kernel_table.h).  Three input forms, recognised from the content:
 *
 *  - CSV with a header naming the columns: our DeepBench-style tables
 *    (gemm m,n,k,a_t,b_t,precision,time_us,...; conv w,h,c,n,k,f_w,f_h,...
 *    fwd_time_us,...; eltwise op,precision,elements,bytes,time_us,...) and
 *    DeepBench's published results (hw,precision,app,..., times in ms;
 *    the all-reduce sheet hw,num_floats,ranks,nodes,mean_ms,...,algorithm
 *    gives fp32 all_reduce comm rows of 4 x num_floats bytes, leaving out
 *    rows over several nodes with a warning).
 *    The time unit comes from the column name (_us, _usec, _ms).  A file
 *    whose first line is data is read with our column order when its field
 *    count is that of one of our tables.
 *  - DeepBench binaries' stdout, whitespace separated, times in usec:
 *      gemm: m n k a_t b_t precision time
 *      conv: w h c n k f_w f_h pad_w pad_h stride_w stride_h precision
 *            fwd_time [bwd_inputs_time bwd_params_time total_time] [algo]
 *    Separator lines of dashes, header lines and "#" comments are skipped.
 *
 * Transposes may be N/T or 0/1; precisions are ours (fp32, tf32, bf16,
 * fp16...) or DeepBench's (float, half, fp16_mixed, fp16_io_fp32_math are
 * all fp16 compute with fp16 inputs).  "N/A*" and empty cells mark a conv
 * pass that was not measured.  Rows go to the table named by the file's hw
 * column, or to opts->hw when there is none or force_hw is set. */
#ifndef FOM_KERNEL_CSV_H
#define FOM_KERNEL_CSV_H

#include "model/kernel_table.h"

struct diag;

struct kernel_read_opts {
    const char *hw;         /* table for rows without a hw column (required) */
    int force_hw;           /* every row goes to hw, even with a hw column */
};

/* Append the rows of path to the tables of set (creating tables as
 * needed).  Returns 0, FOM_EDATA after "FILE:LINE:COL: error: ..." (no
 * rows of a bad file are kept), or FOM_ESYS. */
int kernel_file_read(const char *path, const struct kernel_read_opts *o,
                     struct kernel_set *set, struct diag *d);

/* Our precision names plus DeepBench's; PREC_UNKNOWN if neither. */
enum precision kernel_precision_parse(const char *s);

#endif
