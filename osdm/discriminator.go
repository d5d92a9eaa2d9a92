package osdm

// MemberObjectType is the discriminator member of OSDM objects. The spec
// declares it only where it tells subtypes apart (place references,
// fares...), but the field's consumers also send it on request objects
// whose schema has no such member, naming the object's own schema
// ("objectType": "OfferCollectionRequest"). The providers accept it there
// and ignore it.
const MemberObjectType = "objectType"
