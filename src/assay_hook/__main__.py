from assay_hook import main

main()
