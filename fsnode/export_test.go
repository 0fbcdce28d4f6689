package fsnode

// LiveNodes and MaxKnown let tests see how many inodes the server keeps.
var LiveNodes = liveNodes.Load

const MaxKnown = maxKnown
