# SPDX-License-Identifier: GPL-2.0
#
# The Kubernetes deployment (deploy/kubernetes, Documentation/kubernetes.rst),
# checked without a cluster, a GPU or root.
#
#   make check-deploy   TAP only: tests/deploy/test_manifests.py, a
#                       structural check of the manifests (not the API
#                       server's validation): they parse, known kinds at
#                       their apiVersions, names and namespaces,
#                       kustomizations that list every manifest,
#                       selectors, images, commands, volumes, the
#                       ServiceAccount without token or role; the socket,
#                       MPS directories, uid and LC group agreeing between
#                       the DaemonSet, gspaced.conf and the examples; the
#                       ConfigMap's gspaced.conf run by the real gspaced;
#                       the Dockerfile's base images. Then a schema
#                       check (tests/deploy/k8s_openapi.py): every API
#                       object against the OpenAPI models of Debian's
#                       python3-kubernetes 22.6.0, i.e. Kubernetes 1.22,
#                       strict (unknown fields, JSON types, required
#                       fields, duplicate keys), with a self-test on
#                       broken manifests; kustomization.yaml is skipped
#                       (kustomize's config, not an API object). Needs
#                       python3-yaml; the schema check SKIPs without
#                       python3-kubernetes. Not admission, defaulting or
#                       the API server's own validation rules.

CHECK_SUITES += deploy

.PHONY: check-deploy
# The first python3 with PyYAML and the Kubernetes client: Debian's
# packages are /usr/bin/python3's, and a python3 ahead of it in PATH (a
# virtualenv, pyenv) may lack them; without the client the OpenAPI tests
# SKIP.
check-deploy: $(BUILD)/gspaced $(BUILD)/gspctl
	@py=python3; for p in python3 /usr/bin/python3; do \
		if $$p -c 'import yaml, kubernetes.client' 2>/dev/null; then \
			py=$$p; break; fi; done; \
	$$py -B tests/deploy/test_manifests.py --gspaced $(BUILD)/gspaced \
		--gspctl $(BUILD)/gspctl
