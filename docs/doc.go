// Package docs holds labgen's documentation and the tests that keep it true.
package docs
