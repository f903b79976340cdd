"""The run report: one static HTML page (inline SVG, no network) over a run directory, written by
`report.write.write_report`. Nothing is imported here: every CLI verb's parser imports
`report.cli`, and the page's modules (collect, html_page and their figures) cost a stage process
~0.1 CPU s it never uses."""
