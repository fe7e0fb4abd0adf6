//go:build !race

package workflow

const raceBuild = false
