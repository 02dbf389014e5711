package handle

import (
	"fmt"
	"slices"
)

func typeName(v any) string { return fmt.Sprintf("%T", v) }

func sortInt64(s []int64) { slices.Sort(s) }
