#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parses gspctl metrics' output with Prometheus' own text parser and
checks it against what the suite set up (tests/libgsp/run.sh).

    check_metrics.py FILE DEVICES PARTITION_SMS PARTITION_SLOTS

Prints TAP lines ("ok - ..." / "not ok - ..."), nothing else; exit 0.
"""
import sys


def tap(ok, what):
    print(('ok - ' if ok else 'not ok - ') + 'gspctl metrics: ' + what)


def main():
    path, ndev, part_n, part_k = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        tap(False, 'no prometheus_client to parse with (install python3-prometheus-client)')
        return 0
    try:
        fams = {f.name: f for f in text_string_to_metric_families(open(path).read())}
    except Exception as e:  # the parser's own error is the finding
        tap(False, f'Prometheus\' parser rejects the text: {e}')
        return 0
    tap(True, f'Prometheus\' parser reads it ({len(fams)} families)')

    def samples(name, suffix=''):
        f = fams.get(name)
        return [s for s in f.samples if s.name == name + suffix] if f else []

    up = samples('gspace_up')
    tap(len(up) == 1 and up[0].value == 1 and up[0].labels == {'arbiter': 'daemon'},
        'gspace_up{arbiter="daemon"} 1')
    dev = samples('gspace_devices')
    tap(len(dev) == 1 and dev[0].value == ndev, f'gspace_devices {ndev}')
    sms = {s.labels['dev']: s.value for s in samples('gspace_device_partition_sms')}
    slots = {s.labels['dev']: s.value for s in samples('gspace_device_partition_slots')}
    want = {str(i): float(part_n) for i in range(ndev)}
    tap(sms == want and slots == {str(i): float(part_k) for i in range(ndev)},
        f'every device\'s partition is {part_n},{part_k} (saw {sms}, {slots})')
    f = fams.get('gspace_arbiter_roundtrip_seconds')
    count = [s.value for s in f.samples if s.name.endswith('_count')] if f else []
    inf = [s.value for s in f.samples if s.labels.get('le') == '+Inf'] if f else []
    tap(f is not None and f.type == 'histogram' and count == [16] and inf == [16],
        'the round-trip histogram has its 16 samples')
    gpu = samples('gspace_tenant_gpu_seconds', '_total')
    engines = {s.labels.get('engine') for s in gpu}
    tenants = samples('gspace_tenants')
    ok = (tenants and tenants[0].value >= 1 and engines == {'compute', 'h2d', 'd2h'} and
          all({'dev', 'pid', 'nth', 'uid', 'class'} <= set(s.labels) for s in gpu) and
          fams['gspace_tenant_gpu_seconds'].type == 'counter')
    tap(bool(ok), 'tenants: a GPU-time counter per engine, labelled dev, pid, nth, uid, class')
    names = {'gspace_tenant_queued_jobs', 'gspace_tenant_running_jobs',
             'gspace_tenant_completed_jobs', 'gspace_tenant_failed_jobs',
             'gspace_tenant_qos_violations', 'gspace_tenant_hung',
             'gspace_tenant_share', 'gspace_device_lc_jobs',
             'gspace_device_waiting_jobs', 'gspace_device_request_epoch'}
    tap(names <= set(fams), 'the queue, job, QoS, share and device families are there'
        + ('' if names <= set(fams) else f' (missing {sorted(names - set(fams))})'))
    return 0


if __name__ == '__main__':
    sys.exit(main())
