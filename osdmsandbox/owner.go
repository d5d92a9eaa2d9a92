package osdmsandbox

// AnonymousClient is the owner of what a request without a client makes
// (ServeHTTP, or no osdm_access in front): every such caller is this one
// owner and sees what the others made.
const AnonymousClient = ""
