/* CSV cells, RFC 4180: a cell holding a comma, quote or line break is
 * quoted and its quotes doubled; everything else is written as it is. */
#ifndef FOM_CSV_H
#define FOM_CSV_H
#include <stdio.h>

/* Write s as one cell (NULL writes an empty cell). */
void csv_field(FILE *fp, const char *s);

#endif
