// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness over the core API: four bytes per operation, the
 * shadow model of core_ops.h checking every step. A broken invariant
 * aborts, which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core_ops.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ops o;
	size_t i;

	ops_init(&o);
	for (i = 0; i + 4 <= size; i += 4) {
		ops_step(&o, data[i], data[i + 1], data[i + 2], data[i + 3]);
		if (o.fail != OPS_OK) {
			fprintf(stderr, "core invariant %d broken at step %zu\n",
				o.fail, i / 4);
			abort();
		}
	}
	return 0;
}
