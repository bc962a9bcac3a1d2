/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The knob table, an X-macro header: define GSP_KNOB(name, type, unit,
 * scale, min, max, default, help) and include it; it undefines GSP_KNOB.
 * The order is the sysfs files' and gspctl's. gsp_knobs.h says what the
 * columns mean. A help text has no '|' and no newline: it is a cell of
 * the table in Documentation/uapi.rst.
 */
GSP_KNOB(policy, GSP_KNOB_POLICY, "", 1, 0, GSP_POLICY_COUNT - 1,
	 GSP_POLICY_FIFO, "the GPU-time policy of every device")
GSP_KNOB(period_us, GSP_KNOB_UINT, "us", 1000, 1000, 10000000, 100000,
	 "CREDIT/BAND replenish period")
GSP_KNOB(band_wait_us, GSP_KNOB_UINT, "us", 1000, 0, 100000, 500,
	 "BAND's hold for an under-share tenant, less than period_us")
GSP_KNOB(min_be_permille, GSP_KNOB_UINT, "permille", 1, 0, 1000, 100,
	 "BE's share of each engine while LC work is ready")
GSP_KNOB(reorder, GSP_KNOB_UINT, "", 1, 0, 1, 0,
	 "CuMAS reordering of copy-in, compute, copy-out tasks")
GSP_KNOB(window, GSP_KNOB_UINT, "tasks", 1, 1, GSP_CUMAS_MAX_WINDOW, 8,
	 "CuMAS reordering window")
GSP_KNOB(watchdog_ms, GSP_KNOB_UINT, "ms", 1000000, 1, 3600000, 2000,
	 "lease watchdog: a lease neither completed nor renewed this long fails and marks its tenant hung")
GSP_KNOB(sim_devices, GSP_KNOB_DEVICES, "", 1, 0, GSPACE_BOARD_MAX_DEVICES,
	 0,
	 "simulated devices, numbered first; with lease_devices 1..16 in all; changed only while no job exists")
GSP_KNOB(lease_devices, GSP_KNOB_DEVICES, "", 1, 0,
	 GSPACE_BOARD_MAX_DEVICES, 0,
	 "lease devices (real GPUs), numbered after the simulated ones")
GSP_KNOB(lc_group, GSP_KNOB_GROUP, "", 1, 0, U32_MAX, 0,
	 "a group allowed to become LC without CAP_SYS_NICE (gspace.ko)")
GSP_KNOB(lc_hold_us, GSP_KNOB_UINT, "us", 1000, 0, 100000, 200,
	 "board: LC work counts as active this long after its last issue")
GSP_KNOB(lc_max_ms, GSP_KNOB_UINT, "ms", 1000000, 1, 60000, 100,
	 "board: the longest an in-flight LC slot holds BE work back")
GSP_KNOB(partition, GSP_KNOB_PARTITION, "", 1, 0, 0, 0,
	 "board: BE kernels give up K block slots on N SMs while LC work runs; auto: each LC tenant's search chooses them, K then a share in eighths of each kernel's slots")
GSP_KNOB(search, GSP_KNOB_SEARCH, "", 1, GSPACE_SEARCH_NS,
	 GSPACE_SEARCH_COUNT - 1, GSPACE_SEARCH_NS,
	 "board: the method of the LC tenants' searches under partition auto")
GSP_KNOB(protect, GSP_KNOB_PROTECT, "", 1, 0, GSPACE_PROTECT_COUNT - 1,
	 GSPACE_PROTECT_REACTIVE,
	 "board: when BE kernels give up the partition: LC work in flight (reactive), an LC tenant registered (reserved), in flight or forecast (predictive); preemptive: the whole GPU while LC work is in flight")
GSP_KNOB(predict_lead_us, GSP_KNOB_UINT, "us", 1000, 1, 100000, 500,
	 "board: a predictive LC tenant reserves this long before its forecast work")

GSP_KNOB(tenant_max_jobs, GSP_KNOB_UINT, "jobs", 1, 1, GSP_TENANT_MAX_JOBS,
	 GSP_TENANT_MAX_JOBS,
	 "limit: jobs a tenant holds, from SUBMIT until WAIT or COMPLETE reaps them, ended or not; past it SUBMIT fails with ENOSPC")
GSP_KNOB(tenant_max_fences, GSP_KNOB_UINT, "fences", 1, 0, GSP_LIMIT_MAX,
	 256,
	 "limit: fences the arbiter holds for a tenant, out- and in-fences, each until it signals; past it SUBMIT fails with EMFILE")
GSP_KNOB(tenant_max_waits, GSP_KNOB_UINT, "waits", 1, 0, GSP_LIMIT_MAX, 1024,
	 "limit: WAITs a tenant has parked (blocked, not answered at once); past it WAIT fails with EAGAIN")
GSP_KNOB(uid_max_tenants, GSP_KNOB_UINT, "tenants", 1, 1, GSP_LIMIT_MAX, 256,
	 "limit: tenants one uid holds (CAP_SYS_ADMIN, and gspaced's admins, exempt); past it a new tenant is refused with EUSERS")

#undef GSP_KNOB
