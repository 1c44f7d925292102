// Package engines carries the Maven POMs of labgen's native stack (see
// README.md) into the labgen binary, so that runtime/native can resolve
// the engines' jars from any directory.
package engines

import "embed"

// FS holds pom.xml, each engine's <module>/pom.xml and log4j2.properties.
//
//go:embed pom.xml */pom.xml log4j2.properties
var FS embed.FS
