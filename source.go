// Package labgen carries labgen's own source inside the binary, so that a
// rendered lab directory can build the labgen image (producer, console)
// with Docker alone: render writes these files into labgen/src/.
package labgen

import "embed"

// Source holds go.mod, go.sum and the files of every package cmd/labgen is
// built from. The patterns also catch test files, which render leaves out.
//
// When cmd/labgen starts to import a package of another folder, or a
// package starts to embed files, add them here: render's
// TestSourceBuildsTheCommand compares this list with `go list -deps`.
//
//go:embed go.mod go.sum source.go cmd/labgen/*.go cli/*.go render/*.go render/templates/*.tmpl schemas/*.go sqlread/*.go flinksql/*.go
//go:embed generator/*.go runtime/*/*.go runtime/console/web publish/*.go publish/page.html.tmpl publish/style.css
//go:embed internal/proc/*.go internal/atomicfile/*.go native/chdb/*.go native/chdb/front.py native/chdb/requirements.txt
//go:embed native/engines/*.go native/engines/*.xml native/engines/*.properties native/engines/*/*.xml
//go:embed render/kube/*.go render/kube/sqlrunner/*
var Source embed.FS
