package assert_test

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/assert"
)

func ExampleRefusal() {
	fmt.Println(assert.Refusal("I’m sorry, but I cannot share that."))
	fmt.Println(assert.Refusal("Sorry for the wait: 3 results found."))
	// Output:
	// I'm sorry, but I can't true
	//  false
}
