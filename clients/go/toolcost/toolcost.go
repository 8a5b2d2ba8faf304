// Package toolcost is the name the platform's documentation gives the token estimate:
// toolcost.Count is fit.Weigh, the same numbers as the service.
package toolcost

import "custodian/fit"

// Count estimates the tokens a cl100k-class tokenizer makes of text (fit.Weigh).
func Count(text string) int { return fit.Weigh(text) }
