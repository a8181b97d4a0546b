# Reports and charts (fom report, fom roofline).
#   make reports        write the seed CANDLE report and the H100 vs H200
#                       real-data report under reports/out/
#   make browser-check  render the H100 vs H200 report.html in headless
#                       Chromium and check that the page and its charts show
reports:: fom
	./fom report reports/candle-seed.xml -o reports/out/candle-seed
	./fom report reports/h100-vs-h200.xml -o reports/out/h100-vs-h200

browser-check:: reports
	sh tests/chromium-check.sh reports/out/h100-vs-h200/report.html \
	  reports/out/h100-vs-h200/page.png 4

.PHONY: reports browser-check
