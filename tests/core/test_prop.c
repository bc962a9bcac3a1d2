// SPDX-License-Identifier: GPL-2.0
/*
 * Randomised property tests: submit, complete, cancel, pick, set_params,
 * set_entity, attach and detach sequences against a shadow model.
 */
#include "core_ops.h"
#include "tap.h"

static struct ops o;
static u64 rng = 0x2545f4914f6cdd1dULL;

static u8 rb(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (u8)((rng * 2685821657736338717ULL) >> 56);
}

int main(void)
{
	u64 fails[OPS_IDLE + 1] = { 0 }, steps = 0, picks = 0, holds = 0;
	int seqn, i;

	for (seqn = 0; seqn < 1000; seqn++) {
		ops_init(&o);
		for (i = 0; i < 3000 && o.fail == OPS_OK; i++) {
			u8 op = rb(), a = rb(), b = rb(), c = rb();

			/* Favour picks and completions so work flows. */
			if (op % 11 == 9 && (rb() & 1))
				op = 5 + (rb() & 1);
			ops_step(&o, op, a, b, c);
		}
		fails[o.fail]++;
		steps += o.steps;
		picks += o.picks;
		holds += o.holds;
	}
	tap_diag("%llu steps, %llu picks, %llu BAND holds over 1000 sequences",
		 (unsigned long long)steps, (unsigned long long)picks,
		 (unsigned long long)holds);
	tap_ok(fails[OPS_LOST] == 0,
	       "no job lost or duplicated (%llu failing sequences of 1000)",
	       (unsigned long long)fails[OPS_LOST]);
	tap_ok(fails[OPS_ORDER] == 0,
	       "a tenant's own per-engine order never changes (%llu failing)",
	       (unsigned long long)fails[OPS_ORDER]);
	tap_ok(fails[OPS_CHARGE] == 0,
	       "GPU time charged == engine busy time == time passed to complete (%llu failing)",
	       (unsigned long long)fails[OPS_CHARGE]);
	tap_ok(fails[OPS_NEG] == 0,
	       "no counter negative or wrapped (%llu failing)",
	       (unsigned long long)fails[OPS_NEG]);
	tap_ok(fails[OPS_IDLE] == 0,
	       "an engine with ready work is never left idle except by a bounded BAND hold (%llu failing)",
	       (unsigned long long)fails[OPS_IDLE]);
	tap_ok(picks > 100000 && holds > 0,
	       "the sequences exercise picks (%llu) and holds (%llu)",
	       (unsigned long long)picks, (unsigned long long)holds);
	return tap_done();
}
