import DaemonCommand

// The daemon's entry point; everything else is in DaemonCommand, which multitouchctl also carries.
MultitouchDaemon.main()
