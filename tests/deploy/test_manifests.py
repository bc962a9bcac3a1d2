#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make check-deploy: a structural and a schema check of deploy/kubernetes.

This is not the Kubernetes API server's validation (no API server is
available offline). It reads every manifest with PyYAML (Debian's
python3-yaml) and checks what a broken manifest gets wrong and what the
pieces must agree on:

  * every document parses, is a mapping, and has a known kind with the
    apiVersion (group and version) of that kind;
  * metadata.name is a DNS-1123 name; namespaced objects have a
    namespace, declared by a Namespace of their kustomization;
  * each kustomization.yaml lists exactly the manifests beside it;
  * DaemonSet, Deployment and Job selectors match their template labels;
  * every container has a name, a tagged image (never latest) and a
    command; every volumeMount names a declared volume; every configMap
    volume names a ConfigMap of the set; the ServiceAccount the DaemonSet
    runs as exists, mounts no token and is bound to no role;
  * gspaced's socket path is the same in the DaemonSet's command and
    probes, the ConfigMap's gspaced.conf (if it sets one) and every
    example's gsp-run command, inside the same host directory; so are the
    MPS pipe directory, the GPU user's uid, the node label, and the host
    path of gsp-run, which the init container must copy; an LC example's
    pod holds a gid of gspaced.conf's lc_groups, a BE example's none;
    MPS participants set hostIPC; the examples request nvidia.com/gpu and
    the DaemonSet does not;
  * the ConfigMap's gspaced.conf is accepted by the real gspaced: started
    on it (gspaced has no --check mode) with --foreground on a temp
    socket, it must answer the DaemonSet's own liveness command (gspctl
    ... status) and exit 0 on SIGTERM; the same file with one bad line
    must make it exit 2 (so the check can fail);
  * the Dockerfile has a FROM, every base image has a tag or digest and
    none is "latest", COPY --from names a stage, and it installs with
    make install PREFIX=/usr;
  * where kubectl is installed, kubectl kustomize renders each
    kustomization to the objects of its files (skipped otherwise);
  * the schema: every API object (not the kustomization.yaml files,
    kustomize's own config) against the OpenAPI models of Debian's
    python3-kubernetes (k8s_openapi.py: Kubernetes 1.22's models,
    strict: unknown fields, JSON types, required fields, duplicate
    keys); the kinds above against the client's API table; and the
    check's self-test on broken manifests, so it can fail. Skipped
    without python3-kubernetes.

TAP on stdout, unnumbered (tools/check.sh numbers it); exit 1 if a test
failed, 2 on bad usage.

  tests/deploy/test_manifests.py --gspaced build/gspaced --gspctl build/gspctl
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import manifest_lib as lib
from manifest_lib import (
    KINDS,
    CLUSTER_SCOPED,
    WORKLOADS,
    DNS1123,
    tap,
    skip,
    rel,
    yaml_files,
    load_all,
    pod_template,
    pod_spec,
    containers,
    env_of,
    arg_after,
    eff,
    mount_for,
    host_path_of,
    gsp_run_argv,
    parse_conf)

def check_kinds(docs):
    why = []
    for d in docs:
        kind, api = d.kind, d.obj.get("apiVersion")
        if kind not in KINDS:
            why.append("%s: unknown kind %r" % (d.where(), kind))
        elif api != KINDS[kind]:
            why.append("%s: apiVersion %r, %s is served at %r" %
                       (d.where(), api, kind, KINDS[kind]))
    tap(not why, "every document has a known kind at its apiVersion (%d documents)"
        % len(docs), why)


def kustomizations(docs):
    return [d for d in docs if d.kind == "Kustomization"]


def check_kustomizations(docs):
    why = []
    ks = kustomizations(docs)
    dirs = sorted({os.path.dirname(d.path) for d in docs})
    for dr in dirs:
        if not os.path.isfile(os.path.join(dr, "kustomization.yaml")):
            why.append("%s: manifests but no kustomization.yaml" % rel(dr))
    for k in ks:
        dr = os.path.dirname(k.path)
        listed = k.obj.get("resources") or []
        if len(listed) != len(set(listed)):
            why.append("%s: a resource listed twice" % rel(k.path))
        have = {os.path.basename(p) for p in yaml_files(dr)} - {
            "kustomization.yaml", "kustomization.yml"}
        for r in listed:
            if not os.path.exists(os.path.join(dr, r)):
                why.append("%s: lists %s, which does not exist" % (rel(k.path), r))
        for f in sorted(have - set(listed)):
            why.append("%s: does not list %s" % (rel(k.path), f))
    tap(ks and not why, "each kustomization.yaml lists exactly the manifests "
        "beside it (%s)" % ", ".join(rel(k.path) for k in ks), why)


def sets_of(docs):
    """Each kustomization's documents: those of the files it lists."""
    out = {}
    for k in kustomizations(docs):
        dr = os.path.dirname(k.path)
        files = {os.path.normpath(os.path.join(dr, r))
                 for r in k.obj.get("resources") or []}
        out[k.path] = [d for d in docs if d.path in files]
    return out


def check_metadata(docs, sets):
    why = []
    for d in docs:
        if d.kind == "Kustomization":
            continue
        if not isinstance(d.name, str) or not DNS1123.match(d.name) or \
                len(d.name) > 253:
            why.append("%s: metadata.name %r is not a DNS-1123 name" %
                       (d.where(), d.name))
        if d.kind in CLUSTER_SCOPED:
            if d.namespace is not None:
                why.append("%s: a cluster-scoped object with a namespace" % d.where())
        elif not d.namespace:
            why.append("%s: no metadata.namespace" % d.where())
    for kpath, members in sets.items():
        nss = {d.name for d in members if d.kind == "Namespace"}
        for d in members:
            if d.kind not in CLUSTER_SCOPED and d.namespace and d.namespace not in nss:
                why.append("%s: namespace %s is not a Namespace of %s" %
                           (d.where(), d.namespace, rel(kpath)))
        seen = {}
        for d in members:
            key = (d.kind, d.namespace, d.name)
            if key in seen:
                why.append("%s: same kind, namespace and name as %s" %
                           (d.where(), seen[key].where()))
            seen[key] = d
    tap(not why, "metadata.name set; namespaced objects in a Namespace of their "
        "kustomization", why)


def check_selectors(docs):
    why, n = [], 0
    for d in docs:
        if d.kind not in WORKLOADS:
            continue
        n += 1
        spec = d.obj.get("spec") or {}
        labels = (pod_template(d).get("metadata") or {}).get("labels") or {}
        sel = spec.get("selector")
        if sel is None:
            if d.kind != "Job":
                why.append("%s: no spec.selector" % d.where())
            continue
        ml = sel.get("matchLabels") or {}
        if not ml and not sel.get("matchExpressions"):
            why.append("%s: an empty selector" % d.where())
        for k, v in ml.items():
            if labels.get(k) != v:
                why.append("%s: selector %s=%s, template label %r" %
                           (d.where(), k, v, labels.get(k)))
        for e in sel.get("matchExpressions") or []:
            if e.get("operator") == "In" and labels.get(e.get("key")) not in (e.get("values") or []):
                why.append("%s: selector expression %r does not match the template"
                           % (d.where(), e))
    tap(n and not why, "DaemonSet, Deployment and Job selectors match their "
        "template labels (%d workloads)" % n, why)


def check_containers(docs):
    why, n = [], 0
    for d in docs:
        if d.kind not in WORKLOADS:
            continue
        spec = pod_spec(d)
        if not spec.get("containers"):
            why.append("%s: no containers" % d.where())
        names = [c.get("name") for c in containers(spec)]
        if len(names) != len(set(names)):
            why.append("%s: two containers of one name" % d.where())
        if d.kind == "Job" and spec.get("restartPolicy") not in ("Never", "OnFailure"):
            why.append("%s: a Job's restartPolicy must be Never or OnFailure" % d.where())
        for c in containers(spec):
            n += 1
            w = "%s container %s" % (d.where(), c.get("name"))
            if not c.get("name"):
                why.append("%s: no name" % w)
            img = c.get("image") or ""
            last = img.rsplit("/", 1)[-1]
            if not img:
                why.append("%s: no image" % w)
            elif "@" not in img and ":" not in last:
                why.append("%s: image %s has no tag" % (w, img))
            elif last.endswith(":latest"):
                why.append("%s: image %s is tagged latest" % (w, img))
            cmd = c.get("command")
            if not cmd or not isinstance(cmd, list) or \
                    not all(isinstance(a, str) and a for a in cmd):
                why.append("%s: no command, or one that is not a list of strings" % w)
    tap(n and not why, "every container has a name, a tagged image and a command "
        "(%d containers)" % n, why)


def check_volumes(docs):
    why, n = [], 0
    cms = {(d.namespace, d.name) for d in docs if d.kind == "ConfigMap"}
    for d in docs:
        if d.kind not in WORKLOADS:
            continue
        spec = pod_spec(d)
        vols = spec.get("volumes") or []
        vnames = [v.get("name") for v in vols]
        if len(vnames) != len(set(vnames)):
            why.append("%s: two volumes of one name" % d.where())
        used = set()
        for c in containers(spec):
            paths = set()
            for m in c.get("volumeMounts") or []:
                n += 1
                used.add(m.get("name"))
                if m.get("name") not in vnames:
                    why.append("%s container %s: volumeMount %s names no volume" %
                               (d.where(), c.get("name"), m.get("name")))
                if not str(m.get("mountPath", "")).startswith("/"):
                    why.append("%s container %s: mountPath %r is not absolute" %
                               (d.where(), c.get("name"), m.get("mountPath")))
                if m.get("mountPath") in paths:
                    why.append("%s container %s: two mounts at %s" %
                               (d.where(), c.get("name"), m.get("mountPath")))
                paths.add(m.get("mountPath"))
        for v in vols:
            if v.get("name") not in used:
                why.append("%s: volume %s is mounted by no container" %
                           (d.where(), v.get("name")))
            cm = v.get("configMap")
            if cm is not None and (d.namespace, cm.get("name")) not in cms:
                why.append("%s: volume %s names ConfigMap %s, not in the set" %
                           (d.where(), v.get("name"), cm.get("name")))
            hp = v.get("hostPath")
            if hp is not None and not str(hp.get("path", "")).startswith("/"):
                why.append("%s: hostPath %r is not absolute" % (d.where(), hp.get("path")))
    tap(n and not why, "every volumeMount names a declared volume, every "
        "configMap volume a ConfigMap of the set (%d mounts)" % n, why)


def the(docs, kind, why, name=None):
    found = [d for d in docs if d.kind == kind and (name is None or d.name == name)]
    if len(found) != 1:
        why.append("%d %s%s, expected one" % (len(found), kind,
                                              " " + name if name else ""))
        return None
    return found[0]


def check_service_account(docs):
    why = []
    ds = the(docs, "DaemonSet", why)
    if ds:
        spec = pod_spec(ds)
        san = spec.get("serviceAccountName")
        sa = [d for d in docs if d.kind == "ServiceAccount" and d.name == san
              and d.namespace == ds.namespace]
        if not san:
            why.append("%s: no serviceAccountName" % ds.where())
        elif len(sa) != 1:
            why.append("%s: ServiceAccount %s/%s is not in the set" %
                       (ds.where(), ds.namespace, san))
        elif sa[0].obj.get("automountServiceAccountToken") is not False:
            why.append("%s: automountServiceAccountToken is not false" % sa[0].where())
        if spec.get("automountServiceAccountToken") is not False:
            why.append("%s: the pod does not set automountServiceAccountToken: false"
                       % ds.where())
        for b in docs:
            if b.kind in ("RoleBinding", "ClusterRoleBinding"):
                for s in b.obj.get("subjects") or []:
                    if s.get("kind") == "ServiceAccount" and s.get("name") == san:
                        why.append("%s binds %s: it should have no API permission"
                                   % (b.where(), san))
    tap(not why, "the DaemonSet's ServiceAccount exists, mounts no token and is "
        "bound to no role", why)


def check_agreement(docs, conf):
    """What the DaemonSet, gspaced.conf and the examples must agree on."""
    why = []
    ds = the(docs, "DaemonSet", why)
    if not ds:
        tap(False, "socket, MPS directories, uid, node label and gsp-run agree", why)
        return
    spec = pod_spec(ds)
    byname = {c.get("name"): c for c in containers(spec)}
    gd = next((c for c in spec.get("containers") or []
               if (c.get("command") or [""])[0].endswith("gspaced")), None)
    mps = next((c for c in spec.get("containers") or []
                if "nvidia-cuda-mps-control" in (c.get("command") or [""])[0]), None)
    init = (spec.get("initContainers") or [None])[0]
    if not gd or not mps or not init:
        why.append("%s: needs a gspaced container, an MPS container "
                   "(nvidia-cuda-mps-control) and an init container; has %s"
                   % (ds.where(), sorted(byname)))
        tap(False, "socket, MPS directories, uid, node label and gsp-run agree", why)
        return

    # gspaced's socket: its command, its probes, GSP_SOCKET, gspaced.conf.
    sock = arg_after(gd["command"], "--socket")
    if not sock or not sock.startswith("/"):
        why.append("gspaced's command has no absolute --socket: %r" % sock)
        sock = None
    for p in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = gd.get(p)
        if probe is None:
            if p == "livenessProbe":
                why.append("the gspaced container has no livenessProbe")
            continue
        cmd = (probe.get("exec") or {}).get("command") or []
        if os.path.basename(cmd[0] if cmd else "") != "gspctl" or "status" not in cmd:
            why.append("gspaced's %s is not gspctl ... status: %r" % (p, cmd))
        if arg_after(cmd, "--socket") != sock:
            why.append("gspaced's %s asks socket %r, gspaced listens on %r"
                       % (p, arg_after(cmd, "--socket"), sock))
        if arg_after(cmd, "--arbiter") != "daemon":
            why.append("gspaced's %s does not say --arbiter daemon" % p)
    if env_of(gd).get("GSP_SOCKET") not in (None, sock):
        why.append("gspaced's GSP_SOCKET %r is not its --socket %r"
                   % (env_of(gd)["GSP_SOCKET"], sock))
    if "socket" in conf and conf["socket"] != sock:
        why.append("gspaced.conf says socket = %s, the DaemonSet %s"
                   % (conf["socket"], sock))
    host_sock = host_path_of(spec, gd, sock) if sock else None
    if sock and not host_sock:
        why.append("gspaced's socket %s is on no hostPath volume" % sock)

    # MPS: the pipe and log directories, on the host; the GPU user.
    menv = env_of(mps)
    pipe, log = menv.get("CUDA_MPS_PIPE_DIRECTORY"), menv.get("CUDA_MPS_LOG_DIRECTORY")
    host_pipe = host_path_of(spec, mps, pipe) if pipe else None
    if not pipe or not log or not host_pipe:
        why.append("the MPS container's CUDA_MPS_PIPE_DIRECTORY/LOG_DIRECTORY "
                   "are not both set on a hostPath volume")
    if menv.get("NVIDIA_VISIBLE_DEVICES") != "all":
        why.append("the MPS container does not set NVIDIA_VISIBLE_DEVICES=all")
    gpu_uid = eff(spec, mps, "runAsUser")
    if not spec.get("hostIPC"):
        why.append("%s: no hostIPC, which the MPS server shares with its clients"
                   % ds.where())
    for c in containers(spec):
        lim = (c.get("resources") or {}).get("limits") or {}
        req = (c.get("resources") or {}).get("requests") or {}
        if "nvidia.com/gpu" in lim or "nvidia.com/gpu" in req:
            why.append("%s container %s requests nvidia.com/gpu: it would take a "
                       "GPU from the device plugin" % (ds.where(), c.get("name")))
        if "memory" not in lim or "memory" not in req or "cpu" not in req:
            why.append("%s container %s: no memory limit, or no cpu/memory request"
                       % (ds.where(), c.get("name")))
    for c in (gd, mps):
        if eff(spec, c, "runAsNonRoot") is not True or \
                eff(spec, c, "allowPrivilegeEscalation") is not False:
            why.append("%s container %s: not runAsNonRoot with "
                       "allowPrivilegeEscalation false" % (ds.where(), c.get("name")))
    for c in containers(spec):
        if (c.get("securityContext") or {}).get("privileged"):
            why.append("%s container %s is privileged" % (ds.where(), c.get("name")))
        if "ALL" not in (((c.get("securityContext") or {}).get("capabilities") or {})
                         .get("drop") or []):
            why.append("%s container %s does not drop ALL capabilities"
                       % (ds.where(), c.get("name")))

    # The init container: what it copies, and where on the host.
    script = "\n".join((init.get("command") or []) + (init.get("args") or []))
    init_hosts = {}
    for m in init.get("volumeMounts") or []:
        hp = host_path_of(spec, init, m["mountPath"])
        if hp:
            init_hosts[hp] = m["mountPath"]
    node_sel = spec.get("nodeSelector") or {}
    if not node_sel:
        why.append("%s: no nodeSelector (the node label)" % ds.where())
    lc_gids = {g.strip() for g in conf.get("lc_groups", "").split(",") if g.strip()}

    # The examples.
    n_ex = 0
    for d in docs:
        if d.kind not in WORKLOADS or d is ds:
            continue
        pspec = pod_spec(d)
        for c in containers(pspec):
            argv = gsp_run_argv(c)
            if argv is None:
                continue
            n_ex += 1
            w = "%s container %s" % (d.where(), c.get("name"))
            s = arg_after(argv, "--socket")
            if s != sock:
                why.append("%s: gsp-run --socket %r, gspaced listens on %r" % (w, s, sock))
            elif host_path_of(pspec, c, s) != host_sock:
                why.append("%s: the socket %s is %r on the host, gspaced's is %r"
                           % (w, s, host_path_of(pspec, c, s), host_sock))
            if env_of(c).get("GSP_SOCKET") not in (None, sock):
                why.append("%s: GSP_SOCKET is not gspaced's socket" % w)
            if arg_after(argv, "--arbiter") != "daemon":
                why.append("%s: gsp-run without --arbiter daemon" % w)
            if "--" not in argv or argv.index("--") == len(argv) - 1:
                why.append("%s: gsp-run has no -- PROGRAM" % w)
            # gsp-run itself: read-only, from the host path the init fills.
            m, v = mount_for(pspec, c, argv[0])
            hp = host_path_of(pspec, c, argv[0])
            if not m or not hp:
                why.append("%s: %s is on no hostPath mount" % (w, argv[0]))
            else:
                if not m.get("readOnly"):
                    why.append("%s: the gsp-run mount %s is not readOnly" % (w, m["mountPath"]))
                base = v["hostPath"]["path"].rstrip("/")
                sub = hp[len(base) + 1:]
                if base not in init_hosts:
                    why.append("%s: %s comes from host %s, which the init container "
                               "does not mount" % (w, argv[0], base))
                elif sub not in script:
                    why.append("%s: the init container does not copy %s" % (w, sub))
                for lib in ("libgsp_preload.so", "libgsp.so.1"):
                    if lib not in script:
                        why.append("%s: the init container does not copy %s "
                                   "(gsp-run preloads it)" % (w, lib))
            # MPS.
            e = env_of(c)
            if e.get("CUDA_MPS_PIPE_DIRECTORY") != pipe:
                why.append("%s: CUDA_MPS_PIPE_DIRECTORY %r, the daemon's %r"
                           % (w, e.get("CUDA_MPS_PIPE_DIRECTORY"), pipe))
            elif host_path_of(pspec, c, pipe) != host_pipe:
                why.append("%s: the MPS pipe directory is %r on the host, the "
                           "daemon's %r" % (w, host_path_of(pspec, c, pipe), host_pipe))
            if e.get("CUDA_MPS_LOG_DIRECTORY") != log:
                why.append("%s: CUDA_MPS_LOG_DIRECTORY is not the daemon's" % w)
            if not pspec.get("hostIPC"):
                why.append("%s: no hostIPC: MPS needs the daemon's IPC and /dev/shm" % w)
            if eff(pspec, c, "runAsUser") != gpu_uid:
                why.append("%s: runs as uid %r, the MPS daemon as %r (MPS serves "
                           "one uid)" % (w, eff(pspec, c, "runAsUser"), gpu_uid))
            lim = (c.get("resources") or {}).get("limits") or {}
            if "nvidia.com/gpu" not in lim:
                why.append("%s: no nvidia.com/gpu limit (the device plugin's GPU)" % w)
            for k, val in node_sel.items():
                if (pspec.get("nodeSelector") or {}).get(k) != val:
                    why.append("%s: does not select the nodes of gspaced (%s=%s)"
                               % (w, k, val))
            # LC or BE, and the right to be LC.
            cls = arg_after(argv, "--class") or "be"
            label = ((pod_template(d).get("metadata") or {}).get("labels") or {}) \
                .get("gspace.io/class")
            if label is not None and label != cls:
                why.append("%s: label gspace.io/class=%s, gsp-run --class %s"
                           % (w, label, cls))
            groups = {str(g) for g in (pspec.get("securityContext") or {})
                      .get("supplementalGroups") or []}
            groups.add(str(eff(pspec, c, "runAsGroup")))
            if cls == "lc" and not groups & lc_gids:
                why.append("%s: an LC pod with none of lc_groups %s"
                           % (w, sorted(lc_gids)))
            if cls == "be" and groups & lc_gids:
                why.append("%s: a BE pod in lc_groups %s: it could become LC"
                           % (w, sorted(groups & lc_gids)))
    classes = set()
    for d in docs:
        for c in containers(pod_spec(d)) if d.kind in WORKLOADS else []:
            a = gsp_run_argv(c)
            if a:
                classes.add(arg_after(a, "--class") or "be")
    if classes != {"lc", "be"}:
        why.append("the examples should run one LC and one BE; classes: %s"
                   % sorted(classes))
    tap(not why, "socket %s, MPS pipe %s, uid %s, node label and gsp-run agree "
        "between the DaemonSet, gspaced.conf and %d example containers"
        % (sock, pipe, gpu_uid, n_ex), why)


def config_text(docs):
    """The gspaced.conf of the ConfigMap the DaemonSet mounts, or None."""
    ds = next((d for d in docs if d.kind == "DaemonSet"), None)
    if not ds:
        return None
    names = {v["configMap"].get("name") for v in pod_spec(ds).get("volumes") or []
             if "configMap" in v}
    cms = [d for d in docs if d.kind == "ConfigMap" and d.name in names]
    if len(cms) != 1:
        return None
    return (cms[0].obj.get("data") or {}).get("gspaced.conf")


def check_gspaced(docs, text, gspaced, gspctl):
    """The real gspaced on the ConfigMap's gspaced.conf."""
    if text is None:
        tap(False, "gspaced accepts the ConfigMap's gspaced.conf",
            ["no gspaced.conf in the ConfigMap"])
        return
    for p in (gspaced, gspctl):
        if not os.access(p, os.X_OK):
            tap(False, "gspaced accepts the ConfigMap's gspaced.conf",
                ["%s is not built (make %s)" % (p, p)])
            return
    ds = next(d for d in docs if d.kind == "DaemonSet")
    gd = next(c for c in pod_spec(ds).get("containers")
              if (c.get("command") or [""])[0].endswith("gspaced"))
    probe = ((gd.get("livenessProbe") or {}).get("exec") or {}).get("command") or []
    with tempfile.TemporaryDirectory(prefix="gsp-deploy.") as tmp:
        conf = os.path.join(tmp, "gspaced.conf")
        with open(conf, "w", encoding="utf-8") as f:
            f.write(text)
        sock = os.path.join(tmp, "gspaced.sock")
        why = []
        proc = subprocess.Popen([gspaced, "--foreground", "--config", conf,
                                 "--socket", sock],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        # The DaemonSet's own liveness command, on this socket.
        cmd = [gspctl if a == probe[0] else (sock if i > 0 and probe[i - 1] == "--socket" else a)
               for i, a in enumerate(probe)] if probe else \
            [gspctl, "--arbiter", "daemon", "--socket", sock, "status"]
        up, out = False, ""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None:
            if os.path.exists(sock):
                r = subprocess.run(cmd, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, timeout=10)
                out = r.stdout.decode(errors="replace")
                if r.returncode == 0:
                    up = True
                    break
            time.sleep(0.05)
        if not up:
            why.append("gspaced did not answer %s: %s" % (" ".join(cmd), out.strip()))
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                why.append("gspaced did not exit on SIGTERM within 10 s")
        log = proc.stdout.read().decode(errors="replace")
        if proc.returncode != 0:
            why.append("gspaced exited %d" % proc.returncode)
            why.extend(log.strip().splitlines()[-5:])
        tap(not why, "gspaced accepts the ConfigMap's gspaced.conf: it answers the "
            "DaemonSet's liveness command and exits 0 on SIGTERM", why)

        # The control: one bad line more, and gspaced must refuse the file.
        with open(conf, "a", encoding="utf-8") as f:
            f.write("\npolicy = no-such-policy\n")
        r = subprocess.run([gspaced, "--foreground", "--config", conf,
                            "--socket", os.path.join(tmp, "bad.sock")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=10)
        tap(r.returncode == 2, "gspaced refuses the same gspaced.conf with a bad "
            "line (exit 2), so the check above can fail",
            ["exit %d: %s" % (r.returncode, r.stdout.decode(errors="replace").strip())])


def check_dockerfile():
    path = os.path.join(lib.DEPLOY, "Dockerfile")
    why = []
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        tap(False, "the Dockerfile: FROM with tagged images, never latest", [str(e)])
        return
    # Joined continuation lines, without comments.
    lines = []
    cur = ""
    for raw in text.splitlines():
        s = raw.strip()
        if not cur and (not s or s.startswith("#")):
            continue
        cur += " " + s.rstrip("\\").strip()
        if not s.endswith("\\"):
            lines.append(cur.strip())
            cur = ""
    stages, froms = set(), 0
    args = {}
    for ln in lines:
        word = ln.split(None, 1)[0].upper()
        if word == "ARG" and not froms:
            a = ln.split(None, 1)[1]
            k, _, v = a.partition("=")
            args[k] = v
        if word == "FROM":
            froms += 1
            parts = ln.split()
            parts = [p for p in parts[1:] if not p.startswith("--platform")]
            img = re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), ""), parts[0])
            if img in stages:
                pass
            elif "@" in img:
                pass
            else:
                last = img.rsplit("/", 1)[-1]
                if ":" not in last:
                    why.append("FROM %s: no tag (an implicit latest)" % img)
                elif last.split(":", 1)[1] == "latest":
                    why.append("FROM %s: the latest tag" % img)
            if len(parts) >= 3 and parts[1].upper() == "AS":
                stages.add(parts[2])
        if word in ("COPY", "ADD"):
            m = re.search(r"--from=(\S+)", ln)
            if m and m.group(1) not in stages and not m.group(1).isdigit():
                why.append("%s --from=%s names no stage before it" % (word, m.group(1)))
    if not froms:
        why.append("no FROM")
    if not re.search(r"make\b[^\n]*\binstall\b[^\n]*PREFIX=/usr\b", " ".join(lines)):
        why.append("no make install PREFIX=/usr")
    if re.search(r"(^|\s)latest(\s|$)", " ".join(lines)):
        why.append("the word latest appears outside a comment")
    tap(not why, "the Dockerfile: %d FROM, every base image tagged, none latest, "
        "make install PREFIX=/usr" % froms, why)


def check_kustomize(docs, sets):
    kubectl = shutil.which("kubectl")
    if not kubectl:
        skip("kubectl kustomize renders each kustomization", "no kubectl")
        return
    import yaml
    why = []
    for kpath, members in sets.items():
        r = subprocess.run([kubectl, "kustomize", os.path.dirname(kpath)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        if r.returncode != 0:
            why.append("%s: %s" % (rel(kpath), r.stderr.decode(errors="replace").strip()))
            continue
        got = {(o.get("kind"), (o.get("metadata") or {}).get("namespace"),
                (o.get("metadata") or {}).get("name"))
               for o in yaml.safe_load_all(r.stdout) if o}
        want = {(d.kind, d.namespace, d.name) for d in members}
        if got != want:
            why.append("%s renders %s, its files hold %s" %
                       (rel(kpath), sorted(map(str, got)), sorted(map(str, want))))
    tap(not why, "kubectl kustomize renders each kustomization to the objects of "
        "its files", why)


def check_openapi(docs):
    """The manifests against the Kubernetes OpenAPI models of Debian's
    python3-kubernetes (k8s_openapi.py), the table of known kinds against
    the client's, and the check's self-test (so it can fail)."""
    import yaml
    import k8s_openapi
    what = "every API object validates strictly against the OpenAPI models"
    try:
        checker = k8s_openapi.Checker()
    except ImportError as e:
        skip(what, "no Kubernetes client for %s (%s): install Debian's "
             "python3-kubernetes (tools/install-deps.sh)" % (sys.executable, e))
        return
    why, n, kusts = [], 0, []
    for root, _dirs, _files in sorted(os.walk(lib.DEPLOY)):
        for path in yaml_files(root):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            try:
                objs = k8s_openapi.load_text(yaml, text)
            except yaml.YAMLError as e:
                why.append("%s: %s" % (rel(path), str(e).replace("\n", " ")))
                continue
            for i, o in enumerate(objs):
                if k8s_openapi.is_kustomization(o):
                    kusts.append(rel(path))
                    continue
                if o is None:
                    continue
                n += 1
                d = lib.Doc(path, i, o) if isinstance(o, dict) else None
                where = d.where() if d else "%s#%d" % (rel(path), i)
                why += ["%s: %s: %s" % (where, p or ".", m)
                        for p, m in checker.check(o)]
    tap(n and not why, "%s of Kubernetes %s (python3-kubernetes %s; unknown "
        "fields, JSON types, required fields, duplicate keys): %d documents"
        % (what, checker.api_release, checker.package_version, n), why)
    if kusts:
        skip("the OpenAPI check of %s" % ", ".join(kusts),
             "kustomize's own config (kustomize.config.k8s.io), not a "
             "Kubernetes API object: checked by the kustomization test above "
             "and by kubectl kustomize")
    why = []
    for kind, api_version in sorted(KINDS.items()):
        if api_version.startswith("kustomize.config.k8s.io/"):
            continue
        hit = checker.kinds.get((api_version, kind))
        if not hit:
            why.append("%s %s: not in the client" % (api_version, kind))
        elif hit[1] == (kind in CLUSTER_SCOPED):
            why.append("%s %s: %s in the client" % (
                api_version, kind, "namespaced" if hit[1] else "cluster-scoped"))
    tap(not why, "the known kinds (%d) are served at their apiVersions, with "
        "their scopes, in the client's API table" % (len(KINDS) - 1), why)
    for ok, w, reasons in k8s_openapi.self_test(checker, yaml):
        tap(ok, "the OpenAPI check: " + w, reasons)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gspaced", default=os.path.join(os.environ.get("BUILD", "build"),
                                                      "gspaced"))
    ap.add_argument("--gspctl", default=os.path.join(os.environ.get("BUILD", "build"),
                                                     "gspctl"))
    ap.add_argument("--deploy", help="the folder to check (default deploy/kubernetes)")
    a = ap.parse_args()
    if a.deploy:
        lib.DEPLOY = os.path.abspath(a.deploy)
    print("# a structural and an OpenAPI schema check of deploy/kubernetes, "
          "not the API server's validation")
    try:
        import yaml
    except ImportError:
        tap(False, "PyYAML is installed", ["install Debian's python3-yaml"])
        return 1
    docs, why = load_all(yaml)
    tap(docs and not why, "every manifest under deploy/kubernetes parses "
        "(%d files)" % len({d.path for d in docs}), why)
    if not docs:
        return 1
    check_kinds(docs)
    check_kustomizations(docs)
    sets = sets_of(docs)
    check_metadata(docs, sets)
    check_selectors(docs)
    check_containers(docs)
    check_volumes(docs)
    check_service_account(docs)
    text = config_text(docs)
    conf = parse_conf(text or "")
    check_agreement(docs, conf)
    check_gspaced(docs, text, a.gspaced, a.gspctl)
    check_dockerfile()
    check_kustomize(docs, sets)
    check_openapi(docs)
    return 1 if lib.failed else 0


if __name__ == "__main__":
    sys.exit(main())
