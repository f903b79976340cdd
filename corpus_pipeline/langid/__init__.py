"""The `langid` stage: each document's language and score (fastText lid.176 or any model with
`__label__<code>` labels) and the keep rule over them."""
