# SPDX-License-Identifier: GPL-2.0
#
# The QEMU test VM (tools/vm/): the "vm" suite of make check, and make run.
#
#   make check-vm   build gspace.ko against Debian's headers, boot Debian's
#                   kernel under qemu (TCG), insmod, run each selftest as
#                   root and then as the unprivileged user tenant, rmmod,
#                   and fail on any WARNING/BUG/Oops/refcount/lockdep line
#   make run        the same VM running the demo (tools/demo/gsp-demo.c),
#                   then gsp-psim's SIMULATED GPU table against the
#                   module's own board (libgsp/sim/gsp-psim.c)
#   make soak-vm    the ioctl fuzzer (10 M ioctls) and kill-anywhere
#                   (10,000 points) in the VM, as root (see below)
#
# The top Makefile includes vm.mk last: the vm suite runs after the
# others, and SELFTEST_BINS (with the rules that build them, from
# selftests.mk) and PSIM_SRCS (psim.mk) are defined before they are used
# here.
#
# Knobs (make VAR=value):
#   VM_KERNEL       kernel to boot (newest /boot/vmlinuz-*-amd64)
#   VM_KDIR         headers gspace.ko is built against for it (the same
#                   release, /usr/src/linux-headers-<release>)
#   VM_MODPARAMS    insmod parameters
#   VM_TIMEOUT      seconds a whole VM run may take before it is killed
#   VM_CMD_TIMEOUT  seconds one selftest may take inside the VM
#   DEMO_ARGS       arguments for gsp-demo under make run (see gsp-demo -h)
#   PSIM_ARGS       arguments for gsp-psim -M under make run (gsp-psim -h)

# Evaluated once, and only by the targets that need them.
VM_KERNEL ?= $(eval VM_KERNEL := $(shell tools/vm/find-kernel.sh vmlinuz))$(VM_KERNEL)
VM_KDIR ?= $(eval VM_KDIR := $(shell tools/vm/find-kernel.sh kdir))$(VM_KDIR)
VM_MODPARAMS ?= sim_devices=2 lease_devices=1
VM_TIMEOUT ?= 1500
VM_CMD_TIMEOUT ?= 300
DEMO_ARGS ?=
PSIM_ARGS ?=

VM_BUILD := $(BUILD)/vm
# uid and gid of the user "tenant" that init.sh creates
VM_TENANT := 1000 1000
VM_STATIC_CFLAGS := -O2 -g -Wall -Wextra -Werror -Iuapi -static

CHECK_SUITES += vm

.PHONY: check-vm vm-module vm-run

# gspace.ko (in the repository root) for the VM's kernel.
vm-module:
	@if [ ! -f Kbuild ] || ! ls kmod/*.c >/dev/null 2>&1; then \
		echo "vm: no module sources (Kbuild, kmod/*.c): nothing to boot" >&2; \
		exit 1; \
	fi
	@[ -n "$(VM_KDIR)" ] || { \
		echo "vm: no headers for the VM kernel: run tools/install-deps.sh" >&2; \
		exit 1; }
	@$(MAKE) --no-print-directory module KDIR=$(VM_KDIR)
	@want=$$(tools/vm/find-kernel.sh release); \
	got=$$(modinfo -F vermagic gspace.ko | cut -d' ' -f1); \
	[ "$$got" = "$$want" ] || { \
		echo "vm: gspace.ko is built for '$$got', the VM boots '$$want'" >&2; \
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

# Each selftest runs twice: as root, then as tenant through runas.
check-vm: vm-module $(VM_BUILD)/runas $(SELFTEST_BINS)
	@[ -n "$(VM_KERNEL)" ] || { \
		echo "vm: no kernel to boot: run tools/install-deps.sh" >&2; \
		exit 1; }
	@mkdir -p $(VM_BUILD)
	@for t in $(SELFTEST_BINS); do \
		n=$$(basename $$t); \
		echo "/bin/$$n"; \
		echo "/bin/runas $(VM_TENANT) /bin/$$n"; \
	done >$(VM_BUILD)/check.cmds
	@[ -s $(VM_BUILD)/check.cmds ] || \
		echo "# vm: SELFTEST_BINS is empty: only insmod and rmmod are tested"
	@tools/vm/mkinitramfs.sh -o $(VM_BUILD)/check.img -m gspace.ko \
		-p '$(VM_MODPARAMS)' -c $(VM_BUILD)/check.cmds \
		-t $(VM_CMD_TIMEOUT) $(VM_BUILD)/runas $(SELFTEST_BINS)
	@tools/vm/run.sh -k $(VM_KERNEL) -i $(VM_BUILD)/check.img \
		-t $(VM_TIMEOUT) -d $(VM_BUILD)/check

# make run: dependencies first, then a fresh make that sees them.
run: deps
	@$(MAKE) --no-print-directory vm-run

vm-run: vm-module $(VM_BUILD)/gsp-demo $(VM_BUILD)/gsp-psim
	@[ -n "$(VM_KERNEL)" ] || { \
		echo "vm: no kernel to boot: run tools/install-deps.sh" >&2; \
		exit 1; }
	@{ echo "/bin/gsp-demo$(if $(DEMO_ARGS), $(DEMO_ARGS))"; \
	   echo "/bin/gsp-psim -M$(if $(PSIM_ARGS), $(PSIM_ARGS))"; \
	 } >$(VM_BUILD)/run.cmds
	@tools/vm/mkinitramfs.sh -o $(VM_BUILD)/run.img -m gspace.ko \
		-p '$(VM_MODPARAMS)' -c $(VM_BUILD)/run.cmds \
		-t $(VM_CMD_TIMEOUT) $(VM_BUILD)/gsp-demo $(VM_BUILD)/gsp-psim
	@echo "# booting $(VM_KERNEL) in qemu (TCG, no KVM) with gspace.ko $(VM_MODPARAMS)"
	@tools/vm/run.sh -k $(VM_KERNEL) -i $(VM_BUILD)/run.img \
		-t $(VM_TIMEOUT) -d $(VM_BUILD)/run

# make bench-vm: the ioctl benchmark (selftests/gspace_bench.c) in the VM,
# recorded with its setup under bench/results/ (not part of make check).
BENCH_VM_OUT ?= bench/results/$(shell date +%Y-%m-%d)-qemu-tcg-ioctl
BENCH_VM_ARGS ?=

.PHONY: bench-vm
bench-vm: vm-module $(SELFTEST_BENCH_BIN)
	@echo "/bin/$(notdir $(SELFTEST_BENCH_BIN))$(if $(BENCH_VM_ARGS), $(BENCH_VM_ARGS))" \
		>$(VM_BUILD)/bench.cmds
	@tools/vm/mkinitramfs.sh -o $(VM_BUILD)/bench.img -m gspace.ko \
		-p '$(VM_MODPARAMS)' -c $(VM_BUILD)/bench.cmds \
		-t $(VM_CMD_TIMEOUT) $(SELFTEST_BENCH_BIN)
	@tools/vm/run.sh -k $(VM_KERNEL) -i $(VM_BUILD)/bench.img \
		-t $(VM_TIMEOUT) -d $(VM_BUILD)/bench | tee $(VM_BUILD)/bench.out
	@tools/vm/record-bench.sh $(VM_BUILD)/bench.out $(BENCH_VM_OUT) \
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
	@mkdir -p $(VM_BUILD)
	@{ echo "GSP_FUZZ_IOCTLS=$(SOAK_FUZZ_IOCTLS) GSP_FUZZ_PROCS=$(SOAK_FUZZ_PROCS)$(if $(FUZZ_SEED), GSP_FUZZ_SEED=$(FUZZ_SEED)) /bin/gspace_fuzz_test -T $(SOAK_TIMEOUT)"; \
	   echo "GSP_KILL_POINTS=$(SOAK_KILL_POINTS)$(if $(KILL_SEED), GSP_KILL_SEED=$(KILL_SEED)) /bin/gspace_killanywhere_test -T $(SOAK_TIMEOUT)"; \
	 } >$(VM_BUILD)/soak.cmds
	@tools/vm/mkinitramfs.sh -o $(VM_BUILD)/soak.img -m gspace.ko \
		-p '$(VM_MODPARAMS)' -c $(VM_BUILD)/soak.cmds \
		-t $(SOAK_TIMEOUT) $(SELFTEST_DIR)/gspace_fuzz_test \
		$(SELFTEST_DIR)/gspace_killanywhere_test
	@tools/vm/run.sh -k $(VM_KERNEL) -i $(VM_BUILD)/soak.img \
		-t $$((2 * $(SOAK_TIMEOUT) + 120)) -d $(VM_BUILD)/soak
