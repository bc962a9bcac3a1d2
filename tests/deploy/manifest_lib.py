#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What test_manifests.py's checks share: the kinds and their apiVersions,
TAP lines (failures counted in ``failed``), the manifests as documents
(``Doc``, ``load_all``) and the accessors of pods, containers, mounts and
gspaced.conf. ``DEPLOY`` is the folder checked; test_manifests.py's
--deploy sets it here.
"""

import os
import re

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", ".."))
DEPLOY = os.path.join(TOP, "deploy", "kubernetes")  # --deploy DIR: another

# kind -> apiVersion it is served at (the stable one; the manifests use
# no other).
KINDS = {
    "Namespace": "v1",
    "ServiceAccount": "v1",
    "ConfigMap": "v1",
    "Secret": "v1",
    "Service": "v1",
    "DaemonSet": "apps/v1",
    "Deployment": "apps/v1",
    "Job": "batch/v1",
    "Role": "rbac.authorization.k8s.io/v1",
    "RoleBinding": "rbac.authorization.k8s.io/v1",
    "ClusterRole": "rbac.authorization.k8s.io/v1",
    "ClusterRoleBinding": "rbac.authorization.k8s.io/v1",
    "RuntimeClass": "node.k8s.io/v1",
    "Kustomization": "kustomize.config.k8s.io/v1beta1",
}
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding",
                  "RuntimeClass", "Kustomization"}
WORKLOADS = {"DaemonSet", "Deployment", "Job"}
DNS1123 = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")

failed = 0


def tap(ok, what, why=()):
    """One TAP line; the reasons of a failure as comments below it."""
    global failed
    print(("ok" if ok else "not ok") + " - deploy: " + what)
    if not ok:
        failed += 1
        for w in why:
            print("# " + w)
    return ok


def skip(what, why):
    print("ok - deploy: %s # SKIP %s" % (what, why))


def rel(path):
    return os.path.relpath(path, TOP if path.startswith(TOP) else DEPLOY)


# --- loading ---------------------------------------------------------------

class Doc:
    def __init__(self, path, index, obj):
        self.path, self.index, self.obj = path, index, obj

    @property
    def kind(self):
        return self.obj.get("kind")

    @property
    def name(self):
        return (self.obj.get("metadata") or {}).get("name")

    @property
    def namespace(self):
        return (self.obj.get("metadata") or {}).get("namespace")

    def where(self):
        return "%s#%d %s/%s" % (rel(self.path), self.index, self.kind, self.name)


def yaml_files(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d)
                  if f.endswith((".yaml", ".yml")))


def load_all(yaml):
    """Every document of every YAML file under deploy/kubernetes."""
    docs, why = [], []
    for root, _dirs, _files in sorted(os.walk(DEPLOY)):
        for path in yaml_files(root):
            try:
                with open(path, encoding="utf-8") as f:
                    objs = list(yaml.safe_load_all(f))
            except yaml.YAMLError as e:
                why.append("%s: %s" % (rel(path), str(e).replace("\n", " ")))
                continue
            if not objs or all(o is None for o in objs):
                why.append("%s: no document" % rel(path))
            for i, o in enumerate(objs):
                if o is None:
                    why.append("%s#%d: an empty document" % (rel(path), i))
                elif not isinstance(o, dict):
                    why.append("%s#%d: not a mapping" % (rel(path), i))
                else:
                    docs.append(Doc(path, i, o))
    return docs, why


# --- helpers on pod specs ----------------------------------------------------

def pod_template(d):
    return ((d.obj.get("spec") or {}).get("template") or {})


def pod_spec(d):
    return pod_template(d).get("spec") or {}


def containers(spec, init=True):
    cs = list(spec.get("containers") or [])
    if init:
        cs = list(spec.get("initContainers") or []) + cs
    return cs


def env_of(c):
    return {e.get("name"): e.get("value") for e in c.get("env") or []}


def arg_after(cmd, flag):
    """The value after FLAG in an argv list (before any "--"), or None."""
    for i, a in enumerate(cmd):
        if a == "--":
            return None
        if a == flag and i + 1 < len(cmd):
            return cmd[i + 1]
        if a.startswith(flag + "="):
            return a.split("=", 1)[1]
    return None


def eff(pod, c, key):
    """A securityContext field as the container runs: its own, else the pod's."""
    v = (c.get("securityContext") or {}).get(key)
    if v is None:
        v = (pod.get("securityContext") or {}).get(key)
    return v


def mount_for(spec, c, path):
    """(volumeMount, volume) of container C whose mountPath holds PATH."""
    vols = {v.get("name"): v for v in spec.get("volumes") or []}
    best = None
    for m in c.get("volumeMounts") or []:
        mp = m.get("mountPath", "").rstrip("/")
        if path == mp or path.startswith(mp + "/"):
            if best is None or len(mp) > len(best[0].get("mountPath", "")):
                best = (m, vols.get(m.get("name")))
    return best if best else (None, None)


def host_path_of(spec, c, path):
    """PATH inside container C as a path on the host, through a hostPath
    volume; None if no hostPath volume holds it."""
    m, v = mount_for(spec, c, path)
    if not m or not v or "hostPath" not in v:
        return None
    sub = path[len(m["mountPath"].rstrip("/")):]
    return v["hostPath"].get("path", "").rstrip("/") + sub


def gsp_run_argv(c):
    cmd = list(c.get("command") or []) + list(c.get("args") or [])
    if cmd and os.path.basename(cmd[0]) == "gsp-run":
        return cmd
    return None


def parse_conf(text):
    """gspaced.conf's "key = value" lines, as gspaced reads them."""
    out = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if "=" in line:
            k, v = line.split("=", 1)
            out[k.strip()] = v.strip()
    return out


# --- the checks ----------------------------------------------------------------
