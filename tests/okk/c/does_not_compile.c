/* npusim test kernel: a type error the C compiler must report. */
#include "okk.h"
void broken(const void *args) {
    okk_bdc_relu(0, 0, 17, NULL, NULL);   /* an int where a const dim4 * goes */
    undeclared_variable += 1;
}
