#!/usr/bin/env bash
# testetcd.sh: ensure an etcd binary for the cluster provider tests
# (e2e/cluster_provider_test.go) and print its path as the last line of
# stdout. The tests start their own etcd on a free port; nothing runs here
# (Debian's etcd-server package, installed when missing: testtool.sh).
exec bash "$(dirname "$0")/testtool.sh" etcd etcd-server ALERTD_TEST_ETCD etcd /usr/bin/etcd
