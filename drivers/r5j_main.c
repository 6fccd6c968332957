// SPDX-License-Identifier: GPL-2.0
/* placeholder: replaced by the engine */
#include <linux/module.h>
#include "md.h"
static int __init r5j_init(void) { return 0; }
static void __exit r5j_exit(void) { }
module_init(r5j_init);
module_exit(r5j_exit);
MODULE_LICENSE("GPL");
