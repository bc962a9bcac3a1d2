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
#                       the Dockerfile's base images. Needs python3-yaml.

CHECK_SUITES += deploy

.PHONY: check-deploy
check-deploy: $(BUILD)/gspaced $(BUILD)/gspctl
	@python3 -B tests/deploy/test_manifests.py --gspaced $(BUILD)/gspaced \
		--gspctl $(BUILD)/gspctl
