# SPDX-License-Identifier: GPL-2.0
#
# The QEMU test VM (tools/vm/): the "vm-*" suites of make check, and make run.
#
#   make check-vm   for each kernel of VM_MATRIX (Debian's 6.1 and 6.12):
#                   build gspace.ko (and, where the kernel has DRM,
#                   gspace_drm.ko and the TEST DEVICE gsp_testdrm.ko)
#                   against its headers (W=1, no warning
#                   allowed), boot it under qemu (TCG), insmod, run each
#                   selftest as root and then as the unprivileged user
#                   tenant, rmmod, and fail on any WARNING/BUG/Oops/
#                   refcount/lockdep line
#   make check-vm-6.12
#                   the same on one kernel series alone (any one installed
#                   in /boot, e.g. check-vm-6.1); make check runs these,
#                   one suite per kernel: vm-6.1, vm-6.12
#   make check-vm-debug
#                   the same on a debug kernel built from Debian's
#                   linux-source (tools/vm/debug-kernel.sh, cached in
#                   $(BUILD)/debug-kernel/): KASAN, lockdep, atomic-sleep,
#                   kmemleak (scanned after rmmod), debugobjects and
#                   fault injection (Documentation/selftests.rst); make
#                   check runs it too, as suite vm-debug
#   make run        the same VM running the demo (tools/demo/gsp-demo.c),
#                   then gsp-psim's SIMULATED GPU table against the
#                   module's own board (libgsp/sim/gsp-psim.c)
#   make soak-vm    the ioctl fuzzer (10 M ioctls) and kill-anywhere
#                   (10,000 points) in the VM, as root (see below)
#
# The top Makefile includes vm.mk last: the vm-* suites run after the
# others, and SELFTEST_BINS (with the rules that build them, from
# selftests.mk) and PSIM_SRCS (psim.mk) are defined before they are used
# here.
#
# Knobs (make VAR=value):
#   VM_MATRIX       the kernel series make check and check-vm boot
#   VM_SERIES       the series of make run, bench-vm and soak-vm (the
#                   first of VM_MATRIX); check-vm-SERIES sets it
#   VM_KERNEL       kernel to boot (the newest /boot/vmlinuz-SERIES.*-amd64,
#                   tools/vm/find-kernel.sh)
#   VM_KDIR         headers gspace.ko is built against for it (the same
#                   release, /usr/src/linux-headers-<release>)
#   VM_ENV          environment for every selftest in the VM, e.g.
#                   GSP_FUZZ_IOCTLS=100000 GSP_KILL_POINTS=100 GSP_KILL_SEED=...
#   VM_MODPARAMS    insmod parameters
#   VM_TIMEOUT      seconds a whole VM run may take before it is killed
#   VM_CMD_TIMEOUT  seconds one selftest may take inside the VM
#   DEMO_ARGS       arguments for gsp-demo under make run (see gsp-demo -h)
#   PSIM_ARGS       arguments for gsp-psim -M under make run (gsp-psim -h)

VM_MATRIX ?= 6.1 6.12
VM_SERIES ?= $(firstword $(VM_MATRIX))
# The series "debug" is the kernel of tools/vm/debug-kernel.sh, its built
# tree the KDIR. KASAN, lockdep and kmemleak slow the guest: twice the
# timeouts.
ifeq ($(VM_SERIES),debug)
VM_DEBUG_DIR := $(shell tools/vm/debug-kernel.sh -b $(BUILD) -p)
VM_KERNEL ?= $(firstword $(wildcard $(VM_DEBUG_DIR)/vmlinuz-*))
VM_KDIR ?= $(VM_DEBUG_DIR)/src
VM_TIMEOUT ?= 3000
VM_CMD_TIMEOUT ?= 600
# The fairness test's shares within 5 points of the simulator's, not 3:
# the slower requests and later timers moved one run in five past 3.
VM_ENV ?= GSP_FAIR_TOL_PP=5
endif
# Evaluated once, and only by the targets that need them.
VM_KERNEL ?= $(eval VM_KERNEL := $(shell tools/vm/find-kernel.sh -s $(VM_SERIES) vmlinuz))$(VM_KERNEL)
VM_KDIR ?= $(eval VM_KDIR := $(shell tools/vm/find-kernel.sh -s $(VM_SERIES) kdir))$(VM_KDIR)
# The release the VM boots, as Debian names its image: vmlinuz-RELEASE.
VM_RELEASE = $(patsubst vmlinuz-%,%,$(notdir $(VM_KERNEL)))
VM_MODPARAMS ?= sim_devices=2 lease_devices=1
VM_TIMEOUT ?= 1500
VM_CMD_TIMEOUT ?= 300
DEMO_ARGS ?=
PSIM_ARGS ?=

# Kernel-independent programs in VM_BUILD; each series' module, images
# and logs in its own VM_OUT, so that the kernels of the matrix never
# rebuild each other's gspace.ko.
VM_BUILD := $(BUILD)/vm
VM_OUT := $(VM_BUILD)/$(VM_SERIES)
# gspace.ko is built in VM_MOD, a tree of links to what make dkms-src
# ships (DKMS_FILES, mk/install.mk), not in the source tree.
VM_MOD := $(VM_OUT)/mod
VM_KO := $(VM_MOD)/gspace.ko
# The drm engine's modules (Documentation/drm.rst), where the VM's kernel
# has DRM: gspace_drm.ko (built with gspace.ko, from Kbuild), the TEST
# DEVICE gsp_testdrm.ko (kmod/testdrm/, built here only), and the
# kernel's own drm.ko, which has no module dependency of its own on
# either series (modinfo). init.sh loads them after gspace.ko, in this
# order, and unloads them before it. Without DRM (the debug kernel's
# tinyconfig) there are none, and the gspace_drm tests skip.
VM_HAS_DRM = $(shell grep -qsE '^CONFIG_DRM=(y|m)$$' \
	$(VM_KDIR)/include/config/auto.conf && echo 1)
VM_TESTDRM := $(VM_OUT)/testdrm
VM_DRM_KO = $(if $(VM_HAS_DRM),$(shell modinfo -k $(VM_RELEASE) -n drm 2>/dev/null | \
	grep -v '^(builtin)' | grep -v '^name:'))
VM_EXTRA_MODS = $(if $(VM_HAS_DRM),$(VM_DRM_KO) $(VM_TESTDRM)/gsp_testdrm.ko \
	$(VM_MOD)/gspace_drm.ko)
VM_TESTDRM_FILES := kmod/testdrm/Kbuild kmod/testdrm/gsp_testdrm.c \
	kmod/gsp_kcompat.h kmod/gsp_testdrm.h

# uid and gid of the user "tenant" that init.sh creates
VM_TENANT := 1000 1000
VM_STATIC_CFLAGS := -O2 -g -Wall -Wextra -Werror -Iuapi -static

VM_ENV ?=

CHECK_SUITES += $(addprefix vm-,$(VM_MATRIX)) vm-debug

.PHONY: check-vm vm-check vm-module vm-run

# gspace.ko for the VM's kernel, in VM_MOD, with W=1 as make module, and
# not one warning: after one, the objects go, so the next run rebuilds
# them and warns again.
vm-module:
	@if [ ! -f Kbuild ] || ! ls kmod/*.c >/dev/null 2>&1; then \
		echo "vm: no module sources (Kbuild, kmod/*.c): nothing to boot" >&2; \
		exit 1; \
	fi
	@[ -n "$(VM_KDIR)" ] || { \
		echo "vm: no headers for the VM's $(VM_SERIES) kernel: run tools/install-deps.sh" >&2; \
		exit 1; }
	@mkdir -p $(VM_MOD)
	@find $(VM_MOD) -type l -delete
	@for f in $(DKMS_FILES); do \
		mkdir -p $(VM_MOD)/$$(dirname $$f) && \
		ln -s $(CURDIR)/$$f $(VM_MOD)/$$f || exit 1; \
	done
	@$(MAKE) -C $(VM_KDIR) M=$(abspath $(VM_MOD)) W=1 modules \
		>$(VM_OUT)/module.log 2>&1 || { \
		cat $(VM_OUT)/module.log >&2; \
		echo "vm: gspace.ko does not build against $(VM_KDIR)" >&2; \
		exit 1; }
	@! grep -i 'warning' $(VM_OUT)/module.log >&2 || { \
		find $(VM_MOD) -name '*.o' -type f -delete; \
		rm -f $(VM_KO); \
		echo "vm: gspace.ko has warnings (W=1) against $(VM_KDIR)" >&2; \
		exit 1; }
	@want='$(VM_RELEASE)'; \
	got=$$(modinfo -F vermagic $(VM_KO) | cut -d' ' -f1); \
	[ "$$got" = "$$want" ] || { \
		echo "vm: gspace.ko is built for '$$got', the VM boots '$$want'" >&2; \
		exit 1; }
	@$(if $(VM_HAS_DRM),$(MAKE) --no-print-directory vm-testdrm,\
		rm -f $(VM_MOD)/gspace_drm.ko; \
		echo "# vm: $(VM_KDIR) has no DRM: no gspace_drm.ko, no gsp_testdrm.ko")

# gsp_testdrm.ko, the TEST DEVICE, W=1 and no warning, as gspace.ko.
.PHONY: vm-testdrm
vm-testdrm:
	@[ -n '$(VM_DRM_KO)' ] && [ -f '$(VM_DRM_KO)' ] || { \
		echo "vm: the $(VM_RELEASE) kernel has DRM but no drm.ko in /lib/modules/$(VM_RELEASE)" >&2; \
		exit 1; }
	@mkdir -p $(VM_TESTDRM)
	@find $(VM_TESTDRM) -type l -delete
	@for f in $(VM_TESTDRM_FILES); do \
		ln -s $(CURDIR)/$$f $(VM_TESTDRM)/$$(basename $$f) || exit 1; \
	done
	@$(MAKE) -C $(VM_KDIR) M=$(abspath $(VM_TESTDRM)) W=1 modules \
		>$(VM_OUT)/testdrm.log 2>&1 || { \
		cat $(VM_OUT)/testdrm.log >&2; \
		echo "vm: gsp_testdrm.ko does not build against $(VM_KDIR)" >&2; \
		exit 1; }
	@! grep -i 'warning' $(VM_OUT)/testdrm.log >&2 || { \
		find $(VM_TESTDRM) -name '*.o' -type f -delete; \
		rm -f $(VM_TESTDRM)/gsp_testdrm.ko; \
		echo "vm: gsp_testdrm.ko has warnings (W=1) against $(VM_KDIR)" >&2; \
		exit 1; }

$(VM_BUILD)/runas: tools/vm/runas.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(DEPFLAGS) -static -o $@ $<

$(VM_BUILD)/gsp-demo: tools/demo/gsp-demo.c
	@mkdir -p $(@D)
	$(CC) -std=c11 $(VM_STATIC_CFLAGS) $(DEPFLAGS) -pthread -o $@ $<

# gsp-psim for the VM: $(BUILD)/gsp-psim's objects (psim.mk), linked
# static like the demo.
$(VM_BUILD)/gsp-psim: $(call objs,plain,libgsp/sim/gsp-psim.c $(PSIM_SRCS))
	@mkdir -p $(@D)
	$(CC) -static -o $@ $^ -lm

# Every kernel of the matrix, one after the other; then each its own
# make, with VM_SERIES set.
check-vm:
	@rc=0; for s in $(VM_MATRIX); do \
		$(MAKE) --no-print-directory check-vm-$$s || rc=1; \
	done; exit $$rc

check-vm-%: $(VM_BUILD)/runas $(SELFTEST_BINS) $(SELFTEST_DYN_FILES)
	@$(MAKE) --no-print-directory vm-check VM_SERIES=$*

# The debug kernel is built (or found in its cache) first: 5 to 8 min
# on 2 CPUs the first time.
check-vm-debug: $(VM_BUILD)/runas $(SELFTEST_BINS) $(SELFTEST_DYN_FILES)
	@tools/vm/debug-kernel.sh -b $(BUILD) >/dev/null
	@$(MAKE) --no-print-directory vm-check VM_SERIES=debug

# Each selftest runs twice: as root, then as tenant through runas. The
# dynamic programs the selftests run (SELFTEST_DYN_FILES) come with
# their loader and libraries.
vm-check: vm-module $(VM_BUILD)/runas $(SELFTEST_BINS) $(SELFTEST_DYN_FILES)
	@[ -n "$(VM_KERNEL)" ] || { \
		echo "vm: no kernel to boot: run tools/install-deps.sh" >&2; \
		exit 1; }
	@echo "ok - vm: gspace.ko builds without warnings (W=1) against $(VM_KDIR)"
	@$(if $(VM_HAS_DRM),echo "ok - vm: gspace_drm.ko and gsp_testdrm.ko (TEST DEVICE) build without warnings (W=1) against $(VM_KDIR)")
	@echo "# vm: booting $(VM_KERNEL) (series $(VM_SERIES))$(if $(VM_ENV), with $(VM_ENV))"
	@for t in $(SELFTEST_BINS); do \
		n=$$(basename $$t); \
		echo "$(if $(VM_ENV),$(VM_ENV) )/bin/$$n"; \
		echo "$(if $(VM_ENV),$(VM_ENV) )/bin/runas $(VM_TENANT) /bin/$$n"; \
	done >$(VM_OUT)/check.cmds
	@[ -s $(VM_OUT)/check.cmds ] || \
		echo "# vm: SELFTEST_BINS is empty: only insmod and rmmod are tested"
	@tools/vm/mkinitramfs.sh -o $(VM_OUT)/check.img -m $(VM_KO) \
		$(foreach m,$(VM_EXTRA_MODS),-e $(m)) \
		$(foreach f,$(SELFTEST_DYN_FILES),-d $(f)) \
		-r '$(VM_RELEASE)' -p '$(VM_MODPARAMS)' -c $(VM_OUT)/check.cmds \
		-t $(VM_CMD_TIMEOUT) $(VM_BUILD)/runas $(SELFTEST_BINS)
	@tools/vm/run.sh -k $(VM_KERNEL) -i $(VM_OUT)/check.img \
		-t $(VM_TIMEOUT) -d $(VM_OUT)/check

# make run: dependencies first, then a fresh make that sees them.
run: deps
	@$(MAKE) --no-print-directory vm-run

vm-run: vm-module $(VM_BUILD)/gsp-demo $(VM_BUILD)/gsp-psim
	@[ -n "$(VM_KERNEL)" ] || { \
		echo "vm: no kernel to boot: run tools/install-deps.sh" >&2; \
		exit 1; }
	@{ echo "/bin/gsp-demo$(if $(DEMO_ARGS), $(DEMO_ARGS))"; \
	   echo "/bin/gsp-psim -M$(if $(PSIM_ARGS), $(PSIM_ARGS))"; \
	 } >$(VM_OUT)/run.cmds
	@tools/vm/mkinitramfs.sh -o $(VM_OUT)/run.img -m $(VM_KO) \
		-r '$(VM_RELEASE)' -p '$(VM_MODPARAMS)' -c $(VM_OUT)/run.cmds \
		-t $(VM_CMD_TIMEOUT) $(VM_BUILD)/gsp-demo $(VM_BUILD)/gsp-psim
	@echo "# booting $(VM_KERNEL) in qemu (TCG, no KVM) with gspace.ko $(VM_MODPARAMS)"
	@tools/vm/run.sh -k $(VM_KERNEL) -i $(VM_OUT)/run.img \
		-t $(VM_TIMEOUT) -d $(VM_OUT)/run

# make bench-vm: the ioctl benchmark (selftests/gspace_bench.c) in the VM,
# recorded with its setup under bench/results/ (not part of make check).
BENCH_VM_OUT ?= bench/results/$(shell date +%Y-%m-%d)-qemu-tcg-ioctl
BENCH_VM_ARGS ?=

.PHONY: bench-vm
bench-vm: vm-module $(SELFTEST_BENCH_BIN)
	@echo "/bin/$(notdir $(SELFTEST_BENCH_BIN))$(if $(BENCH_VM_ARGS), $(BENCH_VM_ARGS))" \
		>$(VM_OUT)/bench.cmds
	@tools/vm/mkinitramfs.sh -o $(VM_OUT)/bench.img -m $(VM_KO) \
		-r '$(VM_RELEASE)' -p '$(VM_MODPARAMS)' -c $(VM_OUT)/bench.cmds \
		-t $(VM_CMD_TIMEOUT) $(SELFTEST_BENCH_BIN)
	@tools/vm/run.sh -k $(VM_KERNEL) -i $(VM_OUT)/bench.img \
		-t $(VM_TIMEOUT) -d $(VM_OUT)/bench | tee $(VM_OUT)/bench.out
	@tools/vm/record-bench.sh $(VM_OUT)/bench.out $(BENCH_VM_OUT) \
		"make bench-vm$(if $(BENCH_VM_ARGS), BENCH_VM_ARGS='$(BENCH_VM_ARGS)')" \
		$(VM_KERNEL) '$(VM_MODPARAMS)'

# make soak-vm: the chaos selftests at soak size, as root in the VM (not
# part of make check): the ioctl fuzzer for SOAK_FUZZ_IOCTLS ioctls
# (selftests/gspace_fuzz_test.c) and kill-anywhere for SOAK_KILL_POINTS
# points (selftests/gspace_killanywhere_test.c). FUZZ_SEED and KILL_SEED
# replay a run's seeds; SOAK_TIMEOUT bounds each, in seconds.
SOAK_FUZZ_IOCTLS ?= 10000000
SOAK_FUZZ_PROCS ?= 4
SOAK_KILL_POINTS ?= 10000
SOAK_TIMEOUT ?= 3000
FUZZ_SEED ?=
KILL_SEED ?=

.PHONY: soak-vm
soak-vm: vm-module $(SELFTEST_DIR)/gspace_fuzz_test \
		$(SELFTEST_DIR)/gspace_killanywhere_test
	@[ -n "$(VM_KERNEL)" ] || { \
		echo "vm: no kernel to boot: run tools/install-deps.sh" >&2; \
		exit 1; }
	@{ echo "GSP_FUZZ_IOCTLS=$(SOAK_FUZZ_IOCTLS) GSP_FUZZ_PROCS=$(SOAK_FUZZ_PROCS)$(if $(FUZZ_SEED), GSP_FUZZ_SEED=$(FUZZ_SEED)) /bin/gspace_fuzz_test -T $(SOAK_TIMEOUT)"; \
	   echo "GSP_KILL_POINTS=$(SOAK_KILL_POINTS)$(if $(KILL_SEED), GSP_KILL_SEED=$(KILL_SEED)) /bin/gspace_killanywhere_test -T $(SOAK_TIMEOUT)"; \
	 } >$(VM_OUT)/soak.cmds
	@tools/vm/mkinitramfs.sh -o $(VM_OUT)/soak.img -m $(VM_KO) \
		-r '$(VM_RELEASE)' -p '$(VM_MODPARAMS)' -c $(VM_OUT)/soak.cmds \
		-t $(SOAK_TIMEOUT) $(SELFTEST_DIR)/gspace_fuzz_test \
		$(SELFTEST_DIR)/gspace_killanywhere_test
	@tools/vm/run.sh -k $(VM_KERNEL) -i $(VM_OUT)/soak.img \
		-t $$((2 * $(SOAK_TIMEOUT) + 120)) -d $(VM_OUT)/soak
