// Package chdb carries the native stack's ClickHouse front (front.py, an
// HTTP server speaking ClickHouse's HTTP interface in front of chdb) and
// its pinned Python requirements, embedded so that the labgen binary can
// install and run them from anywhere.
package chdb

import _ "embed"

// Front is front.py.
//
//go:embed front.py
var Front []byte

// Requirements is requirements.txt: exact pins with their sha256 hashes,
// for pip install --no-deps --require-hashes.
//
//go:embed requirements.txt
var Requirements []byte
