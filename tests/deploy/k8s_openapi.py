#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A schema check of Kubernetes manifests against the OpenAPI models of
Debian's python3-kubernetes, the official Python client (22.6.0 in Debian
12: the models of Kubernetes release-1.22, generated from its OpenAPI
spec). No schema file is kept in this tree: everything comes from the
installed client.

  * apiVersion and kind: the client's API classes (AppsV1Api, CoreV1Api,
    ...) are read for their create_* requests, which give the group and
    version of each (the request path), the model of its body (e.g.
    V1DaemonSet) and whether the kind is namespaced. A document whose
    apiVersion and kind are not one of those is an error.
  * Fields, strictly: every key of every mapping must be a field of its
    model (attribute_map), as kubeconform -strict does; every value must
    have the JSON type of openapi_types: 'str' a string, 'int' an integer
    (not a boolean), 'float' a number, 'bool' a boolean, 'datetime' a
    string, 'list[X]' an array of X, 'dict(str, X)' a mapping of string
    keys to X, a model name a mapping checked against that model.
    'object' accepts anything, except in the IntOrString fields below
    (probe and service ports, rolling-update surge and unavailability,
    PDB bounds): an integer or a string. The client types Quantity fields
    (resource requests and limits, emptyDir sizeLimit, ...) as strings;
    the API also takes numbers there, so the fields of QUANTITY take a
    string of quantity syntax or a number.
  * Required fields: those whose setter raises ValueError on None when
    the client's client_side_validation is on (how the client itself
    refuses them). A null counts as absent.
  * The client's own checks on a value (its base64 pattern checks):
    each scalar is given to its setter, and a ValueError is an error.
  * Duplicate keys in a mapping (PyYAML keeps the last one silently;
    kubectl refuses them).

What it is not: the API server's validation (names, label syntax,
immutable fields, cross-field rules), defaulting or admission. Fields
and kinds newer than Kubernetes 1.22 are unknown to it and are reported
as unknown.

Used by test_manifests.py (make check-deploy), which also runs the
self-test (self_test()). By hand:

  tests/deploy/k8s_openapi.py FILE.yaml...   errors, exit 1 if any
  tests/deploy/k8s_openapi.py --self-test    TAP
"""

import copy
import datetime
import difflib
import re
import sys

# IntOrString fields: the client types them 'object'; the API takes an
# integer or a string there. (model, attribute).
INT_OR_STRING = {
    ("V1HTTPGetAction", "port"),
    ("V1TCPSocketAction", "port"),
    ("V1ServicePort", "target_port"),
    ("V1NetworkPolicyPort", "port"),
    ("V1RollingUpdateDeployment", "max_surge"),
    ("V1RollingUpdateDeployment", "max_unavailable"),
    ("V1RollingUpdateDaemonSet", "max_surge"),
    ("V1RollingUpdateDaemonSet", "max_unavailable"),
    ("V1PodDisruptionBudgetSpec", "max_unavailable"),
    ("V1PodDisruptionBudgetSpec", "min_available"),
    ("V1beta1PodDisruptionBudgetSpec", "max_unavailable"),
    ("V1beta1PodDisruptionBudgetSpec", "min_available"),
}

# Quantity fields: the client types them 'str' or 'dict(str, str)'; the
# API takes a quantity string or a number (e.g. nvidia.com/gpu: 1).
QUANTITY = {
    ("V1ResourceRequirements", "limits"),
    ("V1ResourceRequirements", "requests"),
    ("V1EmptyDirVolumeSource", "size_limit"),
    ("V1ResourceFieldSelector", "divisor"),
    ("V1LimitRangeItem", "default"),
    ("V1LimitRangeItem", "default_request"),
    ("V1LimitRangeItem", "max"),
    ("V1LimitRangeItem", "max_limit_request_ratio"),
    ("V1LimitRangeItem", "min"),
    ("V1ResourceQuotaSpec", "hard"),
    ("V1ResourceQuotaStatus", "hard"),
    ("V1ResourceQuotaStatus", "used"),
    ("V1PersistentVolumeSpec", "capacity"),
    ("V1PersistentVolumeClaimStatus", "capacity"),
    ("V1NodeStatus", "allocatable"),
    ("V1NodeStatus", "capacity"),
    ("V1PodSpec", "overhead"),
    ("V1Overhead", "pod_fixed"),
    ("V1beta1Overhead", "pod_fixed"),
    ("V1alpha1Overhead", "pod_fixed"),
    ("V1beta1CSIStorageCapacity", "capacity"),
    ("V1beta1CSIStorageCapacity", "maximum_volume_size"),
    ("V1alpha1CSIStorageCapacity", "capacity"),
    ("V1alpha1CSIStorageCapacity", "maximum_volume_size"),
    ("V2beta2MetricTarget", "average_value"),
    ("V2beta2MetricTarget", "value"),
    ("V2beta2MetricValueStatus", "average_value"),
    ("V2beta2MetricValueStatus", "value"),
    ("V2beta1ExternalMetricSource", "target_average_value"),
    ("V2beta1ExternalMetricSource", "target_value"),
    ("V2beta1ObjectMetricSource", "average_value"),
    ("V2beta1ObjectMetricSource", "target_value"),
    ("V2beta1PodsMetricSource", "target_average_value"),
    ("V2beta1ResourceMetricSource", "target_average_value"),
    ("V2beta1ContainerResourceMetricSource", "target_average_value"),
}

# A quantity: a signed decimal number with a binary (Ki..Ei) or decimal
# (n, u, m, k, M..E) suffix or a decimal exponent.
QUANTITY_RE = re.compile(
    r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE])?$")

LIST_RE = re.compile(r"^list\[(.*)\]$")
DICT_RE = re.compile(r"^dict\(str, (.*)\)$")
API_CLASS_RE = re.compile(r"^[A-Z][A-Za-z]*V[0-9]+(?:(?:alpha|beta)[0-9]+)?Api$")
MODEL_PREFIX_RE = re.compile(r"^(?:[A-Z][a-z]+)*?V[0-9]+(?:(?:alpha|beta)[0-9]+)?")
PATH_RE = re.compile(r"^/(?:api/(v1)|apis/([^/{}]+/[^/{}]+))/")


def jtype(v):
    """The JSON type name of a YAML value, for messages."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    if isinstance(v, (datetime.date, datetime.datetime)):
        return "YAML timestamp (quote it)"
    return type(v).__name__


def a_jtype(v):
    """jtype with its article: "an integer", "a string", "null"."""
    t = jtype(v)
    return t if t == "null" or t.startswith("YAML") else \
        ("an " if t[0] in "aeiou" else "a ") + t


def key_path(path, key):
    if re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", key):
        return "%s.%s" % (path, key)
    return '%s["%s"]' % (path, key)


class Checker:
    """The client's API table and models; check(obj) lists the errors of one
    document as (JSON path, message)."""

    def __init__(self, client=None):
        if client is None:
            import kubernetes.client as client  # python3-kubernetes
        self.client = client
        self.models = client.models
        self.package_version = getattr(client, "__version__", "?")
        self.cfg = client.Configuration()
        self.cfg.client_side_validation = True
        m = re.search(r"Version of the API: *(\S+)", self.cfg.to_debug_report())
        self.api_release = m.group(1) if m else "?"
        self._required = {}
        self.kinds = self._api_table()

    # -- the client's API table ---------------------------------------------

    def _api_table(self):
        """(apiVersion, kind) -> (model name, namespaced), from each create_*
        request of each versioned API class: its path gives the group and
        version, its body's model the kind."""
        table = {}
        for an in dir(self.client):
            if not API_CLASS_RE.match(an):
                continue
            api = getattr(self.client, an)
            for mn in dir(api):
                if not mn.startswith("create_") or mn.endswith("_with_http_info"):
                    continue
                req = getattr(api, mn + "_with_http_info", None)
                body = re.search(r":param (\w+) body:", getattr(api, mn).__doc__ or "")
                if req is None or body is None:
                    continue
                paths = [c for c in req.__code__.co_consts
                         if isinstance(c, str) and PATH_RE.match(c)]
                if len(paths) != 1 or "{name}" in paths[0]:
                    continue  # a subresource (binding, eviction, token)
                m = PATH_RE.match(paths[0])
                api_version = m.group(1) or m.group(2)
                model = body.group(1)
                kind = MODEL_PREFIX_RE.sub("", model)
                if not hasattr(self.models, model) or not kind:
                    continue
                table[(api_version, kind)] = (model, "{namespace}" in paths[0])
        return table

    def resolve(self, api_version, kind):
        """(model name, namespaced), or raise ValueError with the reason."""
        if not isinstance(api_version, str) or not api_version:
            raise ValueError("no apiVersion (a string)")
        if not isinstance(kind, str) or not kind:
            raise ValueError("no kind (a string)")
        hit = self.kinds.get((api_version, kind))
        if hit:
            return hit
        at = sorted(av for av, k in self.kinds if k == kind)
        if at:
            raise ValueError("kind %s is not served at apiVersion %s; the "
                             "client has it at %s" % (kind, api_version, ", ".join(at)))
        near = difflib.get_close_matches(kind, sorted({k for _, k in self.kinds}), 1)
        raise ValueError("no kind %s at apiVersion %s in the Kubernetes %s API%s"
                         % (kind, api_version, self.api_release,
                            " (%s?)" % near[0] if near else ""))

    # -- models ---------------------------------------------------------------

    def model(self, name):
        return getattr(self.models, name)

    def _bare(self, cls):
        o = cls.__new__(cls)
        o.local_vars_configuration = self.cfg
        return o

    def required(self, name):
        """The attributes whose setter refuses None under client-side
        validation: the model's required fields."""
        if name not in self._required:
            cls = self.model(name)
            req = set()
            for attr in cls.openapi_types:
                try:
                    setattr(self._bare(cls), attr, None)
                except ValueError as e:
                    if "must not be `None`" in str(e):
                        req.add(attr)
            self._required[name] = req
        return self._required[name]

    # -- the walk ---------------------------------------------------------------

    def check(self, obj):
        errs = []
        if not isinstance(obj, dict):
            return [("", "the document is %s, not a mapping" % a_jtype(obj))]
        try:
            name, _namespaced = self.resolve(obj.get("apiVersion"), obj.get("kind"))
        except ValueError as e:
            return [("", str(e))]
        self._walk_model(name, obj, "", errs)
        return errs

    def _walk_model(self, name, value, path, errs):
        if not isinstance(value, dict):
            errs.append((path or ".", "a %s must be an object, not %s" %
                         (name, a_jtype(value))))
            return
        cls = self.model(name)
        by_json = {j: a for a, j in cls.attribute_map.items()}
        for key, v in value.items():
            if not isinstance(key, str):
                errs.append((path or ".", "key %r is %s, not a string" %
                             (key, a_jtype(key))))
                continue
            p = key_path(path, key)
            attr = by_json.get(key)
            if attr is None:
                near = difflib.get_close_matches(key, sorted(by_json), 1)
                errs.append((p, "unknown field %r of %s%s" %
                             (key, name, " (%s?)" % near[0] if near else "")))
                continue
            if v is None:
                continue  # null: as if absent (the required check below)
            t = cls.openapi_types[attr]
            if self._walk_type(t, v, p, errs, (name, attr)):
                try:
                    setattr(self._bare(cls), attr, v)
                except ValueError as e:
                    errs.append((p, "the client refuses it: %s" % e))
        for attr in sorted(self.required(name)):
            key = cls.attribute_map[attr]
            if value.get(key) is None:
                errs.append((path or ".", "missing required field %r of %s" %
                             (key, name)))

    def _walk_type(self, t, v, path, errs, field):
        """Check V against type string T; True if V is a scalar of the right
        type (for the setter's own check)."""
        def bad(want):
            errs.append((path, "%s expected, not %s (%r)" % (want, a_jtype(v), v)
                         if not isinstance(v, (dict, list)) else
                         "%s expected, not %s" % (want, a_jtype(v))))
            return False

        m = LIST_RE.match(t)
        if m:
            if not isinstance(v, list):
                return bad("an array")
            for i, item in enumerate(v):
                p = "%s[%d]" % (path, i)
                if item is None:
                    errs.append((p, "null in an array"))
                else:
                    self._walk_type(m.group(1), item, p, errs, field)
            return False
        m = DICT_RE.match(t)
        if m:
            if not isinstance(v, dict):
                return bad("an object")
            for k, item in v.items():
                if not isinstance(k, str):
                    errs.append((path, "key %r is %s, not a string" % (k, a_jtype(k))))
                    continue
                p = key_path(path, k)
                if item is None:
                    errs.append((p, "null value"))
                else:
                    self._walk_type(m.group(1), item, p, errs, field)
            return False
        if t == "str" and field in QUANTITY:
            if isinstance(v, bool) or not isinstance(v, (str, int, float)):
                return bad("a quantity (string or number)")
            if isinstance(v, str) and not QUANTITY_RE.match(v):
                errs.append((path, "%r is not a quantity" % v))
            return False
        if t == "str":
            return bad("a string") if not isinstance(v, str) else True
        if t == "int":
            return bad("an integer") if isinstance(v, bool) or not isinstance(v, int) \
                else True
        if t == "float":
            return bad("a number") if isinstance(v, bool) or \
                not isinstance(v, (int, float)) else True
        if t == "bool":
            return bad("a boolean") if not isinstance(v, bool) else True
        if t in ("datetime", "date"):
            return bad("a date-time string") if not isinstance(
                v, (str, datetime.date, datetime.datetime)) else False
        if t == "object":
            if field in INT_OR_STRING and (isinstance(v, bool) or
                                           not isinstance(v, (int, str))):
                return bad("an integer or a string")
            return False
        if hasattr(self.models, t):
            self._walk_model(t, v, path, errs)
            return False
        errs.append((path, "the client's type %r is unknown to this check" % t))
        return False


# --- YAML ----------------------------------------------------------------------

def strict_loader(yaml):
    """A SafeLoader that refuses a key given twice in one mapping."""
    class Loader(yaml.SafeLoader):
        pass

    def mapping(loader, node, deep=False):
        seen = set()
        for k, _v in node.value:
            if k.tag == "tag:yaml.org,2002:merge":
                continue  # "<<": its keys may be overridden here
            key = loader.construct_object(k, deep=True)
            try:
                dup = key in seen
            except TypeError:
                continue
            if dup:
                raise yaml.constructor.ConstructorError(
                    None, None, "duplicate key %r" % (key,), k.start_mark)
            seen.add(key)
        return yaml.SafeLoader.construct_mapping(loader, node, deep)

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return Loader


def load_text(yaml, text):
    """The documents of TEXT, or raise yaml.YAMLError (duplicate keys too)."""
    return list(yaml.load_all(text, Loader=strict_loader(yaml)))


def is_kustomization(obj):
    return isinstance(obj, dict) and \
        str(obj.get("apiVersion", "")).startswith("kustomize.config.k8s.io/")


def check_text(checker, yaml, text):
    """[(document index, JSON path, message)] of a YAML text; kustomize's
    own config documents are left out."""
    try:
        docs = load_text(yaml, text)
    except yaml.YAMLError as e:
        return [(None, "", str(e).replace("\n", " "))]
    out = []
    for i, d in enumerate(docs):
        if d is None or is_kustomization(d):
            continue
        out += [(i, p, m) for p, m in checker.check(d)]
    return out


# --- the self-test ---------------------------------------------------------------

GOOD = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: t
  namespace: t
  labels: {app: t, "example.com/node": "true"}
spec:
  selector:
    matchLabels: {app: t}
  updateStrategy:
    type: RollingUpdate
    rollingUpdate: {maxUnavailable: 1}
  template:
    metadata:
      labels: {app: t}
    spec:
      hostIPC: true
      securityContext:
        runAsUser: 1000
        seccompProfile: {type: RuntimeDefault}
      containers:
      - name: c
        image: example.com/t:1
        command: [sleep, "3600"]
        ports:
        - {name: http, containerPort: 8080}
        readinessProbe:
          httpGet: {path: /, port: http}
        livenessProbe:
          tcpSocket: {port: 8080}
          periodSeconds: 10
        resources:
          requests: {cpu: 100m, memory: 64Mi}
          limits: {memory: 1Gi, example.com/dev: 1}
        volumeMounts:
        - {name: tmp, mountPath: /tmp}
      volumes:
      - name: tmp
        emptyDir: {medium: Memory, sizeLimit: 16Mi}
"""


def _c0(d):
    return d["spec"]["template"]["spec"]["containers"][0]


def _set(f):
    def g(d):
        f(d)
        return d
    return g


# (what, how to break GOOD, a substring the error must hold, its path)
BROKEN = [
    ("an unknown key in a container",
     _set(lambda d: _c0(d).update(imagePullPolicyy="Always")),
     "unknown field 'imagePullPolicyy' of V1Container",
     ".spec.template.spec.containers[0].imagePullPolicyy"),
    ("a string where an integer is required",
     _set(lambda d: _c0(d)["ports"][0].update(containerPort="8080")),
     "an integer expected, not a string",
     ".spec.template.spec.containers[0].ports[0].containerPort"),
    ("a boolean where an integer is required",
     _set(lambda d: _c0(d)["livenessProbe"].update(periodSeconds=True)),
     "an integer expected, not a boolean",
     ".spec.template.spec.containers[0].livenessProbe.periodSeconds"),
    ("a missing container name",
     _set(lambda d: _c0(d).pop("name")),
     "missing required field 'name' of V1Container",
     ".spec.template.spec.containers[0]"),
    ("a DaemonSet without a selector",
     _set(lambda d: d["spec"].pop("selector")),
     "missing required field 'selector' of V1DaemonSetSpec",
     ".spec"),
    ("a DaemonSet at a wrong apiVersion",
     _set(lambda d: d.update(apiVersion="batch/v1")),
     "kind DaemonSet is not served at apiVersion batch/v1; the client has it at apps/v1",
     ""),
    ("an unknown kind",
     _set(lambda d: d.update(kind="Daemonset")),
     "no kind Daemonset at apiVersion apps/v1",
     ""),
    ("a label value that is not a string",
     _set(lambda d: d["metadata"]["labels"].update({"example.com/node": True})),
     "a string expected, not a boolean",
     '.metadata.labels["example.com/node"]'),
    ("a quantity that is not one",
     _set(lambda d: _c0(d)["resources"]["requests"].update(memory="64 MB")),
     "'64 MB' is not a quantity",
     ".spec.template.spec.containers[0].resources.requests.memory"),
    ("a boolean as an IntOrString port",
     _set(lambda d: _c0(d)["livenessProbe"]["tcpSocket"].update(port=False)),
     "an integer or a string expected",
     ".spec.template.spec.containers[0].livenessProbe.tcpSocket.port"),
    ("a mapping where an array is required",
     _set(lambda d: _c0(d).update(command={"sleep": 1})),
     "an array expected, not an object",
     ".spec.template.spec.containers[0].command"),
    ("the client's own check of a value",
     lambda d: {"apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingWebhookConfiguration",
                "metadata": {"name": "t"},
                "webhooks": [{"name": "w.example.com",
                              "admissionReviewVersions": ["v1"],
                              "sideEffects": "None",
                              "clientConfig": {"caBundle": "not base64!"}}]},
     "the client refuses it",
     ".webhooks[0].clientConfig.caBundle"),
]


def self_test(checker, yaml):
    """[(ok, what, why)]: GOOD passes; each of BROKEN is reported, with the
    right path; a duplicate key is refused; the IntOrString and Quantity
    tables name fields of the client's types 'object' and strings."""
    out = []
    base = load_text(yaml, GOOD)[0]
    errs = checker.check(copy.deepcopy(base))
    out.append((not errs, "passes a correct DaemonSet (int and named probe "
                "ports, quantities as strings and as a number)",
                ["%s: %s" % e for e in errs]))
    for what, breaker, msg, path in BROKEN:
        errs = checker.check(breaker(copy.deepcopy(base)))
        hit = [e for e in errs if msg in e[1] and e[0] == (path or e[0])]
        out.append((bool(hit), "reports %s (%s)" % (what, path or "the document"),
                    ["want %r at %r; got: %s" % (msg, path, errs)]))
    try:
        load_text(yaml, GOOD.replace("  name: t\n", "  name: t\n  name: u\n", 1))
        dup = ["no error"]
    except yaml.YAMLError as e:
        dup = [] if "duplicate key 'name'" in str(e) else [str(e)]
    out.append((not dup, "refuses a key given twice in one mapping", dup))
    why = []
    for table, ok_types in ((INT_OR_STRING, ("object",)),
                            (QUANTITY, ("str", "dict(str, str)"))):
        for model, attr in sorted(table):
            t = getattr(checker.models, model, None)
            t = t and t.openapi_types.get(attr)
            if t not in ok_types:
                why.append("%s.%s is %r in the client, not %s" %
                           (model, attr, t, " or ".join(ok_types)))
    out.append((not why, "its IntOrString (%d) and Quantity (%d) fields are "
                "'object' and string fields of the client" %
                (len(INT_OR_STRING), len(QUANTITY)), why))
    return out


def main(argv):
    import yaml
    checker = Checker()
    if argv[1:] == ["--self-test"]:
        bad = 0
        for ok, what, why in self_test(checker, yaml):
            print("%s - k8s_openapi: %s" % ("ok" if ok else "not ok", what))
            if not ok:
                bad += 1
                for w in why:
                    print("# " + w)
        return 1 if bad else 0
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    bad = 0
    for path in argv[1:]:
        with open(path, encoding="utf-8") as f:
            for i, p, m in check_text(checker, yaml, f.read()):
                bad += 1
                print("%s#%s: %s: %s" % (path, "?" if i is None else i, p or ".", m))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
