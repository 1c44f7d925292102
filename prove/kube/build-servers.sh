#!/usr/bin/env bash
# Builds kube-apiserver, kubectl and etcd from the Go module proxy into
# ~/.cache/labgen/kube/v<version>/ (once per version), for the tests that
# apply a rendered lab to a real API server (server-side dry-run).
#
# `go install k8s.io/kubernetes/cmd/...` is refused: its go.mod replaces
# every staging module (k8s.io/api, k8s.io/apiserver, …) with a directory
# the module zip does not carry. A copy of the module with each of those
# replaced by its published version (v0.<minor>.<patch>) builds. etcd
# builds from a three-line main around etcdmain.Main.
#
# Usage: prove/kube/build-servers.sh        prints the directory of the binaries
set -euo pipefail

KUBE_VERSION=${KUBE_VERSION:-1.37.2}
# The etcd release kube-apiserver's go.mod requires.
ETCD_VERSION=${ETCD_VERSION:-3.7.0}
dir=${LABGEN_KUBE_CACHE:-$HOME/.cache/labgen/kube}/v$KUBE_VERSION
if [[ -x $dir/kube-apiserver && -x $dir/kubectl && -x $dir/etcd ]]; then
	echo "$dir"
	exit 0
fi
GO=${GO:-go}
# A go.work above the temporary directory must not take the copy in.
export GOWORK=off
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$dir"
start=$SECONDS

src=$(GOFLAGS=-mod=mod "$GO" mod download -json "k8s.io/kubernetes@v$KUBE_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[[ -d $src ]] || { echo "build-servers: no k8s.io/kubernetes@v$KUBE_VERSION from the module proxy" >&2; exit 1; }
cp -r "$src" "$work/kubernetes"
chmod -R u+w "$work/kubernetes"
cd "$work/kubernetes"
rm -rf vendor
staging="v0.${KUBE_VERSION#1.}"
sed -i -E "s#^([[:space:]]*)(k8s\.io/[a-z0-9-]+) => \./staging/src/k8s\.io/[a-z0-9-]+#\1\2 => \2 $staging#" go.mod
if grep -q '=> ./staging' go.mod; then
	echo "build-servers: a staging module was left unreplaced in go.mod" >&2
	exit 1
fi
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=v$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(cut -d. -f2 <<<"$KUBE_VERSION") -X k8s.io/component-base/version.gitTreeState=clean"
GOFLAGS=-mod=mod nice -n 10 "$GO" build -trimpath -ldflags "$ldflags" -o "$dir/" ./cmd/kube-apiserver ./cmd/kubectl

mkdir -p "$work/etcd"
cd "$work/etcd"
cat >main.go <<'GO'
// etcd for labgen's API-server tests.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
"$GO" mod init labgen.local/etcd >/dev/null 2>&1
GOFLAGS=-mod=mod "$GO" get "go.etcd.io/etcd/server/v3@v$ETCD_VERSION" >/dev/null
GOFLAGS=-mod=mod nice -n 10 "$GO" build -trimpath -ldflags "-s -w" -o "$dir/etcd" .
echo "build-servers: built kube-apiserver, kubectl and etcd v$ETCD_VERSION in $((SECONDS - start)) s" >&2
echo "$dir"
